// Events' `occurred_at` comes from the database's clock at insert, one clock for every replica.
import { Migration } from '@mikro-orm/migrations';

/**
 * `clock_timestamp()`, not `now()`: the time the row is inserted, after the writing transaction took the changed
 * resource's row lock (recordEvent), not when the transaction began, so a resource's events also read in time order.
 */
export class Migration20261126120100_event_occurred_at_database_clock extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table "event" alter column "occurred_at" set default clock_timestamp();');
  }

  override async down(): Promise<void> {
    this.addSql('alter table "event" alter column "occurred_at" drop default;');
  }
}
