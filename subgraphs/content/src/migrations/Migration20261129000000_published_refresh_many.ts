// The published projection refreshed for many entries at once: a release or bulk publish refreshes its entries in a
// few set-based statements before its commit, and each entry's trigger at commit then finds it current and returns.
import { Migration } from '@mikro-orm/migrations';
import { REFRESH as PREVIOUS } from './Migration20261128210000_published_refresh';

/** Rewrites the published links and row of entries whose shown version the projection doesn't hold yet. */
export const SHOW = `create or replace function "show_published_contents"(entries varchar[]) returns void language plpgsql as $$
  begin
    delete from "content_link" where "from_id" = any(entries) and "scope" = 'published';
    insert into "content_link" ("organization_id", "project_id", "from_id", "scope", "target_kind", "target_id", "path", "position")
      select v."organization_id", v."project_id", c."id", 'published', l->>'kind', l->>'targetId', l->>'path', (o - 1)::int
      from "content" c join "content_version" v on v."content_id" = c."id" and v."version" = c."last_published_version",
        jsonb_array_elements(v."links") with ordinality as t(l, o)
      where c."id" = any(entries);
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
      from "content" c join "content_version" v on v."content_id" = c."id" and v."version" = c."last_published_version"
      where c."id" = any(entries)
    on conflict ("id") do update set
      "type_version" = excluded."type_version", "package_version" = excluded."package_version",
      "version" = excluded."version", "name" = excluded."name", "description" = excluded."description", "is_template" = excluded."is_template",
      "tags" = excluded."tags", "folder_id" = excluded."folder_id", "metadata" = excluded."metadata", "updated_at" = excluded."updated_at",
      "search_vector" = excluded."search_vector", "content" = excluded."content"
      where "published_content"."version" <> excluded."version";
  end $$;`;

/** One entry, as its trigger refreshes it: gone, no longer shown, already current (a draft edit), or shown anew. */
const REFRESH = `create or replace function "refresh_published_content"(entry varchar) returns void language plpgsql as $$
  declare shown int; found boolean;
  begin
    -- One look at the entry: whether it exists, and the version the projection shows.
    select true, case when c."status" in ('published', 'modified') then c."last_published_version" end
      into found, shown from "content" c where c."id" = entry;
    if found is null then
      delete from "content_link" where "from_id" = entry;
    end if;
    if shown is null then
      delete from "published_content" where "id" = entry;
      delete from "content_link" where "from_id" = entry and "scope" = 'published';
      return;
    end if;
    -- Draft edits move the status (published → modified) and leave the version, its row and its links alone.
    if exists (select 1 from "published_content" p where p."id" = entry and p."version" = shown) then
      return;
    end if;
    perform "show_published_contents"(array[entry]);
  end $$;`;

/** Many entries: those shown anew in set-based statements, any other one by itself. */
const REFRESH_MANY = `create or replace function "refresh_published_contents"(entries varchar[]) returns void language plpgsql as $$
  declare stale varchar[];
  begin
    select coalesce(array_agg(c."id"), '{}') into stale from "content" c
      where c."id" = any(entries) and c."status" in ('published', 'modified') and c."last_published_version" is not null
        and not exists (select 1 from "published_content" p where p."id" = c."id" and p."version" = c."last_published_version");
    perform "show_published_contents"(stale);
    perform "refresh_published_content"(e) from unnest(entries) as e where e <> all(stale);
  end $$;`;

export class Migration20261129000000_published_refresh_many extends Migration {
  override async up(): Promise<void> {
    this.addSql(SHOW);
    this.addSql(REFRESH);
    this.addSql(REFRESH_MANY);
  }

  override async down(): Promise<void> {
    this.addSql(PREVIOUS);
    this.addSql('drop function if exists "refresh_published_contents"(varchar[]);');
    this.addSql('drop function if exists "show_published_contents"(varchar[]);');
  }
}
