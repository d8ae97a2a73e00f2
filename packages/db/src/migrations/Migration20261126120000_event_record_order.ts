// Orders unnumbered events by a database sequence drawn at their insert, not by the writing replica's clock.
import { Migration } from '@mikro-orm/migrations';

/**
 * `record_seq` is drawn from a sequence when the event row is inserted: every write inserts its event after its
 * transaction holds the changed resource's row lock (recordEvent), so the next change of that resource draws a larger
 * number, whatever the clocks of the replicas that made them. Only unnumbered events need it: numbered rows keep null
 * (adding a column without a default rewrites no rows; the default then applies to new rows only), and the events
 * still unnumbered now get theirs in the order the dispatcher used until now.
 */
export class Migration20261126120000_event_record_order extends Migration {
  override async up(): Promise<void> {
    this.addSql('create sequence "event_record_seq";');
    this.addSql('alter table "event" add column "record_seq" bigint null;');
    this.addSql(`update "event" set "record_seq" = s.seq
      from (select id, nextval('event_record_seq') as seq
              from (select id from "event" where "position" is null order by "occurred_at", "id") ordered) s
     where "event"."id" = s.id;`);
    this.addSql(`alter table "event" alter column "record_seq" set default nextval('event_record_seq');`);
    this.addSql('alter sequence "event_record_seq" owned by "event"."record_seq";');
    this.addSql('create index "event_unnumbered_record_seq_index" on "event" ("record_seq") where "position" is null;');
    this.addSql('drop index if exists "event_unpositioned_index";');
  }

  override async down(): Promise<void> {
    this.addSql('create index "event_unpositioned_index" on "event" ("occurred_at", "id") where "position" is null;');
    this.addSql('drop index if exists "event_unnumbered_record_seq_index";');
    this.addSql('alter table "event" drop column "record_seq";');
    this.addSql('drop sequence if exists "event_record_seq";');
  }
}
