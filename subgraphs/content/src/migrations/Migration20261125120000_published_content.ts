// What API keys read of content: one row per entry with a live published version, kept by the database itself.
import { Migration } from '@mikro-orm/migrations';

/**
 * The row of every visible entry (a published version, and the entry published or modified over it): the version's
 * snapshot (name, tags, folder, …, its full-text vector) and its publication time as `updated_at`, so a key's
 * filters, sorts and searches never read the working copy. API keys see no revision of their own (they
 * never write): the read path answers the version number as `revision`.
 */
export const REFRESH = `create or replace function "refresh_published_content"(entry varchar) returns void language plpgsql as $$
  begin
    if not exists (select 1 from "content" c where c."id" = entry and c."last_published_version" is not null and c."status" in ('published', 'modified')) then
      delete from "published_content" where "id" = entry;
      return;
    end if;
    insert into "published_content" ("id", "organization_id", "project_id", "type_id", "type_version", "package_version", "version",
        "name", "description", "is_template", "tags", "folder_id", "metadata", "created_by_id", "created_at", "updated_at", "search_vector")
      select c."id", c."organization_id", c."project_id", c."type_id", (v."content"->>'typeVersion')::int, v."content"->>'packageVersion', v."version",
        v."content"->>'name', v."content"->>'description', coalesce((v."content"->>'isTemplate')::boolean, false), coalesce(v."content"->'tags', '[]'::jsonb),
        v."content"->>'folderId', coalesce(v."content"->'metadata', '{}'::jsonb), c."created_by_id", c."created_at", v."created_at",
        setweight(to_tsvector('english', coalesce(v."content"->>'name', '')), 'A') ||
        setweight(to_tsvector('english', coalesce(v."content"->>'description', '')), 'B') ||
        setweight(jsonb_to_tsvector('english', coalesce(v."content"->'content', '{}'::jsonb), '["string"]'), 'C')
      from "content" c join "content_version" v on v."content_id" = c."id" and v."version" = c."last_published_version"
      where c."id" = entry
    -- Draft edits also move the entry's status (published → modified): the row changes only with the version.
    on conflict ("id") do update set
      "type_version" = excluded."type_version", "package_version" = excluded."package_version",
      "version" = excluded."version", "name" = excluded."name", "description" = excluded."description", "is_template" = excluded."is_template",
      "tags" = excluded."tags", "folder_id" = excluded."folder_id", "metadata" = excluded."metadata", "updated_at" = excluded."updated_at",
      "search_vector" = excluded."search_vector"
      where "published_content"."version" <> excluded."version";
  end $$;`;

export class Migration20261125120000_published_content extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "published_content" (
      "id" varchar(64) primary key,
      "organization_id" varchar(64) not null,
      "project_id" varchar(64) not null,
      "type_id" varchar(64) not null,
      "type_version" int not null,
      "package_version" varchar(32) not null,
      "version" int not null,
      "name" varchar(255) not null,
      "description" text null,
      "is_template" boolean not null,
      "tags" jsonb not null,
      "folder_id" varchar(64) null,
      "metadata" jsonb not null,
      "created_by_id" varchar(64) not null,
      "created_at" timestamptz not null,
      "updated_at" timestamptz not null,
      "search_vector" tsvector not null);`);
    this.addSql(
      'create index "published_content_project_updated_index" on "published_content" ("project_id", "updated_at", "id");',
    );
    this.addSql(
      'create index "published_content_project_type_index" on "published_content" ("project_id", "type_id");',
    );
    this.addSql(
      'create index "published_content_tags_index" on "published_content" using gin ("tags" jsonb_path_ops);',
    );
    this.addSql('create index "published_content_search_index" on "published_content" using gin ("search_vector");');
    this.addSql(`do $$
      begin
        if exists (select 1 from pg_extension where extname = 'pg_trgm') then
          create index if not exists "published_content_name_trgm_index" on "published_content" using gin ("name" gin_trgm_ops) with (fastupdate = off);
        end if;
      end
    $$;`);
    this.addSql(REFRESH);
    // Deferred to the commit: a publish writes the entry and its version row in either order within its transaction.
    this.addSql(`create or replace function "content_published_trigger"() returns trigger language plpgsql as $$
      begin
        perform "refresh_published_content"(case when tg_op = 'DELETE' then old."id" else new."id" end);
        return null;
      end $$;`);
    this
      .addSql(`create constraint trigger "content_published_refresh" after insert or update of "status", "last_published_version" on "content"
      deferrable initially deferred for each row execute function "content_published_trigger"();`);
    this.addSql(
      `create trigger "content_published_delete" after delete on "content" for each row execute function "content_published_trigger"();`,
    );
    this.addSql(`create table "published_content_embedding" (
      "content_id" varchar(64) primary key,
      "organization_id" varchar(64) not null,
      "project_id" varchar(64) not null,
      "vector" real[] not null,
      "source_updated_at" timestamptz not null);`);
    this.addSql(
      'create index "published_content_embedding_project_index" on "published_content_embedding" ("organization_id", "project_id");',
    );
    // Entries published before this migration.
    this.addSql(
      `select "refresh_published_content"(c."id") from "content" c where c."last_published_version" is not null and c."status" in ('published', 'modified');`,
    );
  }

  override async down(): Promise<void> {
    this.addSql('drop trigger if exists "content_published_refresh" on "content";');
    this.addSql('drop trigger if exists "content_published_delete" on "content";');
    this.addSql('drop function if exists "content_published_trigger"();');
    this.addSql('drop function if exists "refresh_published_content"(varchar);');
    this.addSql('drop table if exists "published_content", "published_content_embedding";');
  }
}
