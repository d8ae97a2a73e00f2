// The content_type table.
import { Migration } from '@mikro-orm/migrations';

export class Migration20261122000200_content_type extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "content_type" (
      "id" varchar(64) primary key,
      "organization_id" varchar(64) not null,
      "project_id" varchar(64) not null,
      "name" varchar(255) not null,
      "description" text null,
      "status" text check ("status" in ('draft', 'modified', 'published', 'unpublished', 'deleted')) not null,
      "version" int null,
      "last_published_version" int null,
      "layout_component_id" varchar(64) null,
      "component_ids_allow_list" jsonb not null,
      "package_version" varchar(32) not null,
      "schema" jsonb not null,
      "template_content_ids" jsonb not null,
      "permissions" jsonb not null,
      "metadata" jsonb not null,
      "created_by_id" varchar(64) not null,
      "created_at" timestamptz not null,
      "updated_at" timestamptz not null,
      constraint "content_type_project_id_name_unique" unique ("project_id", "name"));`);
    this.addSql(
      'create index "content_type_project_id_created_at_index" on "content_type" ("project_id", "created_at");',
    );
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists "content_type";');
  }
}
