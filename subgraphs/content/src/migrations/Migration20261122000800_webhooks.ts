// Outbound webhooks, their delivery log, and how far the event log has been turned into deliveries.
import { Migration } from '@mikro-orm/migrations';

export class Migration20261122000800_webhooks extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "webhook" (
      "id" varchar(64) primary key,
      "organization_id" varchar(64) not null,
      "project_id" varchar(64) not null,
      "url" text not null,
      "event_types" jsonb not null,
      "description" text null,
      "active" boolean not null,
      "secret_ciphertext" text not null,
      "created_by_id" varchar(64) not null,
      "created_at" timestamptz not null,
      "updated_at" timestamptz not null);`);
    this.addSql('create index "webhook_project_id_created_at_index" on "webhook" ("project_id", "created_at");');
    this.addSql(`create table "webhook_delivery" (
      "id" varchar(64) primary key,
      "webhook_id" varchar(64) not null,
      "event_id" varchar(64) not null,
      "event_type" varchar(64) not null,
      "status" varchar(16) not null,
      "attempts" int not null,
      "response_code" int null,
      "duration_ms" int null,
      "error" text null,
      "next_attempt_at" timestamptz not null,
      "delivered_at" timestamptz null,
      "created_at" timestamptz not null,
      constraint "webhook_delivery_webhook_id_event_id_unique" unique ("webhook_id", "event_id"));`);
    this.addSql(
      'create index "webhook_delivery_webhook_id_created_at_index" on "webhook_delivery" ("webhook_id", "created_at");',
    );
    this.addSql(
      `create index "webhook_delivery_due_index" on "webhook_delivery" ("next_attempt_at") where "status" in ('pending', 'retrying', 'sending');`,
    );
    this.addSql('create table "webhook_cursor" ("id" int primary key, "position" bigint not null);');
    this.addSql('insert into "webhook_cursor" ("id", "position") values (1, 0);');
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists "webhook_cursor", "webhook_delivery", "webhook";');
  }
}
