// A trigram index for the search's `like` filter on content names (`ilike '%…%'` cannot use a b-tree).
import { Migration } from '@mikro-orm/migrations';

export class Migration20261124130006_name_trigram extends Migration {
  override async up(): Promise<void> {
    // pg_trgm is a trusted extension (PostgreSQL ≥ 13: the database owner may create it) and PGlite loads it at start
    // (packages/db/src/embedded.ts). Where it is missing the search still works, only unindexed.
    this.addSql(`do $$
      begin
        if exists (select 1 from pg_available_extensions where name = 'pg_trgm') then
          create extension if not exists pg_trgm;
          create index if not exists "content_name_trgm_index" on "content" using gin ("name" gin_trgm_ops);
        end if;
      end
    $$;`);
  }

  override async down(): Promise<void> {
    this.addSql('drop index if exists "content_name_trgm_index";');
  }
}
