// The `like` filter's trigram index without GIN's pending list, so a name search never scans unmerged entries.
import { Migration } from '@mikro-orm/migrations';

export class Migration20261124190000_name_trigram_no_pending extends Migration {
  override async up(): Promise<void> {
    // With `fastupdate` on, new entries wait in a pending list (up to 4 MB) that every search reads in full until a
    // vacuum merges them; the embedded database has no autovacuum at all, and even PostgreSQL's waits for 20 % of the
    // table to change. Names are short (a few dozen trigrams), so inserting them at once costs about 0.07 ms per write.
    // The ALTER locks the index until the migration commits: content reads wait for the pending list's merge (seconds).
    this.addSql(`do $$
      begin
        if to_regclass('content_name_trgm_index') is not null then
          alter index "content_name_trgm_index" set (fastupdate = off);
          perform gin_clean_pending_list('content_name_trgm_index'::regclass);
        end if;
      end
    $$;`);
  }

  override async down(): Promise<void> {
    this.addSql(`do $$
      begin
        if to_regclass('content_name_trgm_index') is not null then
          alter index "content_name_trgm_index" set (fastupdate = on);
        end if;
      end
    $$;`);
  }
}
