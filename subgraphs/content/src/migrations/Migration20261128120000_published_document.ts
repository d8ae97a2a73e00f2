// The published document in the published projection, so filters on the fields inside a document run on an index.
import { Migration } from '@mikro-orm/migrations';
import { REFRESH as REFRESH_WITHOUT_DOCUMENT } from './Migration20261125120000_published_content';

/**
 * `published_content.content`: the published version's document, written by the same refresh as the rest of the row.
 * An `eq` on a property is `content @> {"path": value}`, which the `jsonb_path_ops` GIN index answers without reading
 * the type's other entries. The index skips GIN's pending list (`fastupdate = off`) for the reason the name index
 * does: the embedded database never vacuums, and every search would read the unmerged entries in full.
 */
export const REFRESH = `create or replace function "refresh_published_content"(entry varchar) returns void language plpgsql as $$
  begin
    if not exists (select 1 from "content" c where c."id" = entry and c."last_published_version" is not null and c."status" in ('published', 'modified')) then
      delete from "published_content" where "id" = entry;
      return;
    end if;
    insert into "published_content" ("id", "organization_id", "project_id", "type_id", "type_version", "package_version", "version",
        "name", "description", "is_template", "tags", "folder_id", "metadata", "created_by_id", "created_at", "updated_at", "search_vector", "content")
      select c."id", c."organization_id", c."project_id", c."type_id", (v."content"->>'typeVersion')::int, v."content"->>'packageVersion', v."version",
        v."content"->>'name', v."content"->>'description', coalesce((v."content"->>'isTemplate')::boolean, false), coalesce(v."content"->'tags', '[]'::jsonb),
        v."content"->>'folderId', coalesce(v."content"->'metadata', '{}'::jsonb), c."created_by_id", c."created_at", v."created_at",
        setweight(to_tsvector('english', coalesce(v."content"->>'name', '')), 'A') ||
        setweight(to_tsvector('english', coalesce(v."content"->>'description', '')), 'B') ||
        setweight(jsonb_to_tsvector('english', coalesce(v."content"->'content', '{}'::jsonb), '["string"]'), 'C'),
        coalesce(v."content"->'content', '{}'::jsonb)
      from "content" c join "content_version" v on v."content_id" = c."id" and v."version" = c."last_published_version"
      where c."id" = entry
    -- Draft edits also move the entry's status (published → modified): the row changes only with the version.
    on conflict ("id") do update set
      "type_version" = excluded."type_version", "package_version" = excluded."package_version",
      "version" = excluded."version", "name" = excluded."name", "description" = excluded."description", "is_template" = excluded."is_template",
      "tags" = excluded."tags", "folder_id" = excluded."folder_id", "metadata" = excluded."metadata", "updated_at" = excluded."updated_at",
      "search_vector" = excluded."search_vector", "content" = excluded."content"
      where "published_content"."version" <> excluded."version";
  end $$;`;

export class Migration20261128120000_published_document extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "published_content" add column "content" jsonb not null default '{}'::jsonb;`);
    this.addSql(REFRESH);
    this.addSql(
      `update "published_content" p set "content" = coalesce(v."content"->'content', '{}'::jsonb) from "content_version" v where v."content_id" = p."id" and v."version" = p."version";`,
    );
    this.addSql(
      'create index "published_content_document_index" on "published_content" using gin ("content" jsonb_path_ops) with (fastupdate = off);',
    );
  }

  override async down(): Promise<void> {
    this.addSql(REFRESH_WITHOUT_DOCUMENT);
    this.addSql('drop index if exists "published_content_document_index";');
    this.addSql('alter table "published_content" drop column if exists "content";');
  }
}
