// Immutable component versions and packages.
import { Migration } from '@mikro-orm/migrations';

export class Migration20261122000500_packages extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "component_version" (
      "id" varchar(64) primary key,
      "component_id" varchar(64) not null,
      "organization_id" varchar(64) not null,
      "project_id" varchar(64) not null,
      "version" int not null,
      "name" varchar(255) not null,
      "type" varchar(16) not null,
      "title" varchar(255) null,
      "description" text null,
      "content" text not null,
      "compiled" text not null,
      "schema" jsonb not null,
      "created_by_id" varchar(64) not null,
      "created_at" timestamptz not null,
      constraint "component_version_component_id_version_unique" unique ("component_id", "version"));`);
    this.addSql(`create table "package" (
      "id" varchar(64) primary key,
      "organization_id" varchar(64) not null,
      "project_id" varchar(64) not null,
      "version" varchar(32) not null,
      "description" text null,
      "components" jsonb not null,
      "created_by_id" varchar(64) not null,
      "created_at" timestamptz not null,
      constraint "package_project_id_version_unique" unique ("project_id", "version"));`);
    this.addSql('create index "package_project_id_created_at_index" on "package" ("project_id", "created_at");');
    this.addSql('create index "package_components_index" on "package" using gin ("components" jsonb_path_ops);');
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists "package", "component_version";');
  }
}
