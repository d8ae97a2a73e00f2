// Core tables shared by every subgraph: the event log.
import { Migration } from '@mikro-orm/migrations';

export class Migration20261122000000_core extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table "event" (
        "id" uuid primary key,
        "type" varchar(64) not null,
        "resource_type" varchar(32) not null,
        "resource_id" varchar(64) not null,
        "organization_id" varchar(64) not null,
        "project_id" varchar(64) null,
        "version" int null,
        "published" boolean not null default false,
        "occurred_at" timestamptz not null,
        "actor_id" varchar(64) null
      );`);
    this.addSql('create index "event_project_id_occurred_at_index" on "event" ("project_id", "occurred_at");');
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists "event";');
  }
}
