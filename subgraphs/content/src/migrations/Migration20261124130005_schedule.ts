// Scheduled publish and unpublish of content entries and content types.
import { Migration } from '@mikro-orm/migrations';

export class Migration20261124130005_schedule extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "schedule" (
      "id" varchar(64) not null primary key,
      "organization_id" varchar(64) not null,
      "project_id" varchar(64) not null,
      "resource_type" varchar(32) not null,
      "resource_id" varchar(64) not null,
      "action" varchar(16) not null,
      "at" timestamptz not null,
      "status" text check ("status" in ('pending', 'done', 'failed', 'cancelled')) not null default 'pending',
      "error" jsonb null,
      "created_by_id" varchar(64) not null,
      "created_at" timestamptz not null,
      "updated_at" timestamptz not null
    );`);
    // The worker's claim: pending rows by due time.
    this.addSql(`create index "schedule_due_index" on "schedule" ("at") where "status" = 'pending';`);
    this.addSql('create index "schedule_project_id_at_index" on "schedule" ("project_id", "at");');
    this.addSql('create index "schedule_resource_id_index" on "schedule" ("resource_id");');
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists "schedule";');
  }
}
