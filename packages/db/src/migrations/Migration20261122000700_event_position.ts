// Commit-ordered event positions: assigned after commit by one dispatcher at a time, so readers never skip.
import { Migration } from '@mikro-orm/migrations';

export class Migration20261122000700_event_position extends Migration {
  override async up(): Promise<void> {
    this.addSql('create sequence "event_position_seq";');
    this.addSql('alter table "event" add column "position" bigint null;');
    this.addSql('create unique index "event_position_unique" on "event" ("position");');
    this.addSql('create index "event_unpositioned_index" on "event" ("occurred_at", "id") where "position" is null;');
    this.addSql('create index "event_project_id_position_index" on "event" ("project_id", "position");');
  }

  override async down(): Promise<void> {
    this.addSql(
      'drop index if exists "event_project_id_position_index", "event_unpositioned_index", "event_position_unique";',
    );
    this.addSql('alter table "event" drop column "position";');
    this.addSql('drop sequence if exists "event_position_seq";');
  }
}
