// The component table.
import { Migration } from '@mikro-orm/migrations';

export class Migration20261122000300_component extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "component" (
      "id" varchar(64) primary key,
      "organization_id" varchar(64) not null,
      "project_id" varchar(64) not null,
      "name" varchar(255) not null,
      "title" varchar(255) null,
      "description" text null,
      "type" varchar(16) not null,
      "status" varchar(16) not null,
      "version" int null,
      "last_published_version" int null,
      "content" text not null,
      "compiled" text null,
      "schema" jsonb not null,
      "collection_id" varchar(64) null,
      "metadata" jsonb not null,
      "created_by_id" varchar(64) not null,
      "created_at" timestamptz not null,
      "updated_at" timestamptz not null,
      constraint "component_project_id_name_unique" unique ("project_id", "name"));`);
    this.addSql('create index "component_project_id_created_at_index" on "component" ("project_id", "created_at");');
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists "component";');
  }
}
