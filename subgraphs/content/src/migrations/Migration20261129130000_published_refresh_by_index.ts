// The published projection's refresh reads each entry and its shown version by their keys, whatever the tables' size
// and whatever the planner last knew of it.
import { Migration } from '@mikro-orm/migrations';
import { SHOW as PREVIOUS } from './Migration20261129000000_published_refresh_many';

/**
 * As before, but each entry of `entries` (once, however often it is named) is looked up by its primary key and its
 * shown version by (`content_id`, `version`), one lookup each (`lateral … offset 0` keeps the planner from turning
 * them into joins).
 * The join they replace was planned from statistics, which lag behind the tables (autoanalyze looks at most once a
 * minute): while they said `content_version` was small, every publish hashed the whole table and scanned `content`,
 * reading every version of every entry of every project. Under the write benchmark that was two fifths of the
 * database's time.
 */
const SHOW = `create or replace function "show_published_contents"(entries varchar[]) returns void language plpgsql as $$
  begin
    delete from "content_link" where "from_id" = any(entries) and "scope" = 'published';
    insert into "content_link" ("organization_id", "project_id", "from_id", "scope", "target_kind", "target_id", "path", "position")
      select v."organization_id", v."project_id", c."id", 'published', l->>'kind', l->>'targetId', l->>'path', (o - 1)::int
      from (select distinct "id" from unnest(entries) as "id") e,
        lateral (select * from "content" c where c."id" = e."id" offset 0) c,
        lateral (select * from "content_version" v
                  where v."content_id" = c."id" and v."version" = c."last_published_version" offset 0) v,
        jsonb_array_elements(v."links") with ordinality as t(l, o);
    insert into "published_content" ("id", "organization_id", "project_id", "type_id", "type_version", "package_version", "version",
        "name", "description", "is_template", "tags", "folder_id", "metadata", "created_by_id", "created_at", "updated_at", "search_vector", "content")
      select c."id", c."organization_id", c."project_id", c."type_id", (v."content"->>'typeVersion')::int, v."content"->>'packageVersion', v."version",
        v."content"->>'name', v."content"->>'description', coalesce((v."content"->>'isTemplate')::boolean, false), coalesce(v."content"->'tags', '[]'::jsonb),
        v."content"->>'folderId', coalesce(v."content"->'metadata', '{}'::jsonb), c."created_by_id", c."created_at", v."created_at",
        -- Right after a publish the working row is the version shown, and its search vector (the same expression over
        -- the same name, description and document) is already computed: only an older version needs its own.
        case when c."status" = 'published' and c."version" = c."last_published_version" then c."search_vector" else
        setweight(to_tsvector('english', coalesce(v."content"->>'name', '')), 'A') ||
        setweight(to_tsvector('english', coalesce(v."content"->>'description', '')), 'B') ||
        setweight(jsonb_to_tsvector('english', coalesce(v."content"->'content', '{}'::jsonb), '["string"]'), 'C') end,
        coalesce(v."content"->'content', '{}'::jsonb)
      from (select distinct "id" from unnest(entries) as "id") e,
        lateral (select * from "content" c where c."id" = e."id" offset 0) c,
        lateral (select * from "content_version" v
                  where v."content_id" = c."id" and v."version" = c."last_published_version" offset 0) v
    on conflict ("id") do update set
      "type_version" = excluded."type_version", "package_version" = excluded."package_version",
      "version" = excluded."version", "name" = excluded."name", "description" = excluded."description", "is_template" = excluded."is_template",
      "tags" = excluded."tags", "folder_id" = excluded."folder_id", "metadata" = excluded."metadata", "updated_at" = excluded."updated_at",
      "search_vector" = excluded."search_vector", "content" = excluded."content"
      where "published_content"."version" <> excluded."version";
  end $$;`;

/**
 * The refresh of one entry (every write's trigger) and of many: their statements are planned for each call, from the
 * tables' size at that moment. A plan a session kept from when `published_content` fit in a page read the whole
 * table for every draft edit of a published entry once it had grown.
 */
const REFRESHES = ['"refresh_published_content"(varchar)', '"refresh_published_contents"(varchar[])'];

export class Migration20261129130000_published_refresh_by_index extends Migration {
  override async up(): Promise<void> {
    this.addSql(SHOW);
    for (const refresh of REFRESHES) this.addSql(`alter function ${refresh} set plan_cache_mode = force_custom_plan;`);
  }

  override async down(): Promise<void> {
    this.addSql(PREVIOUS);
    for (const refresh of REFRESHES) this.addSql(`alter function ${refresh} reset plan_cache_mode;`);
  }
}
