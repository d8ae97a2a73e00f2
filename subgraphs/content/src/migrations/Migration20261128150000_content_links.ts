// References between entries: a links table of its own, so integrity checks and referenced-by lists never read documents.
import { Migration } from '@mikro-orm/migrations';
import { REFRESH as REFRESH_WITHOUT_LINKS } from './Migration20261128120000_published_document';

/**
 * `content_link` holds one row per reference in a document: `working` rows for the working copy of every entry that is
 * not deleted (the application writes them with the document), `published` rows for the version the published
 * projection shows. The published rows come from the version's own `links` (computed once, when it was published)
 * and are written by the projection's refresh, at commit, whatever moved the entry (publish, unpublish, delete,
 * restore, discard, rollback, a schedule, an import). `content_link_target_index` answers "who references X" for
 * deletes and referenced-by lists.
 */
export const REFRESH = `create or replace function "refresh_published_content"(entry varchar) returns void language plpgsql as $$
  declare shown int;
  begin
    if not exists (select 1 from "content" c where c."id" = entry) then
      delete from "content_link" where "from_id" = entry;
    end if;
    select c."last_published_version" into shown from "content" c
      where c."id" = entry and c."last_published_version" is not null and c."status" in ('published', 'modified');
    if shown is null then
      delete from "published_content" where "id" = entry;
      delete from "content_link" where "from_id" = entry and "scope" = 'published';
      return;
    end if;
    -- Draft edits leave the published version (and so its links) alone: rewrite them only when the version changes.
    if not exists (select 1 from "published_content" p where p."id" = entry and p."version" = shown) then
      delete from "content_link" where "from_id" = entry and "scope" = 'published';
      insert into "content_link" ("organization_id", "project_id", "from_id", "scope", "target_kind", "target_id", "path", "position")
        select v."organization_id", v."project_id", entry, 'published', l->>'kind', l->>'targetId', l->>'path', (o - 1)::int
        from "content_version" v, jsonb_array_elements(v."links") with ordinality as t(l, o)
        where v."content_id" = entry and v."version" = shown;
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

export class Migration20261128150000_content_links extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "content_link" (
      "organization_id" varchar(64) not null,
      "project_id" varchar(64) not null,
      "from_id" varchar(64) not null,
      "scope" varchar(16) not null check ("scope" in ('working', 'published')),
      "target_kind" varchar(16) not null check ("target_kind" in ('content', 'asset')),
      "target_id" varchar(255) not null,
      "path" text not null,
      "position" int not null,
      primary key ("from_id", "scope", "path"));`);
    this.addSql(
      'create index "content_link_target_index" on "content_link" ("target_id", "scope", "project_id", "from_id");',
    );
    // A version's references as published: `[{path, kind, targetId}]` in document order. Versions before this
    // migration were saved while `reference` was no keyword, so they reference nothing.
    this.addSql(`alter table "content_version" add column "links" jsonb not null default '[]'::jsonb;`);
    this.addSql(REFRESH);
  }

  override async down(): Promise<void> {
    this.addSql(REFRESH_WITHOUT_LINKS);
    this.addSql('alter table "content_version" drop column if exists "links";');
    this.addSql('drop table if exists "content_link";');
  }
}
