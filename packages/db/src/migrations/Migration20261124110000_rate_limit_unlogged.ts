// Rate-limit counters in an UNLOGGED table: a counter upsert per request writes no WAL and waits for no flush.
import { Migration } from '@mikro-orm/migrations';

/**
 * The columns are rate-limiter-flexible's (`RateLimiterPostgres`), whose own table is logged.
 * Counters lost in a crash only reset budgets early, which is acceptable; the rows are short-lived anyway.
 */
export class Migration20261124110000_rate_limit_unlogged extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create unlogged table if not exists "rate_limit" ("key" varchar(255) primary key, "points" integer not null default 0, "expire" bigint);`,
    );
    this.addSql('alter table "rate_limit" set unlogged;');
  }

  override async down(): Promise<void> {
    this.addSql('alter table "rate_limit" set logged;');
  }
}
