// Immutable versions of content types and content, and content entries themselves (with their full-text vector).
import { Migration } from '@mikro-orm/migrations';

export class Migration20261122000900_versions extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "content_type_version" (
      "id" varchar(64) primary key,
      "content_type_id" varchar(64) not null,
      "organization_id" varchar(64) not null,
      "project_id" varchar(64) not null,
      "version" int not null,
      "content" jsonb not null,
      "package_version" varchar(32) not null,
      "created_by_id" varchar(64) not null,
      "created_at" timestamptz not null,
      constraint "content_type_version_content_type_id_version_unique" unique ("content_type_id", "version"));`);
    this.addSql(`create table "content" (
      "id" varchar(64) primary key,
      "organization_id" varchar(64) not null,
      "project_id" varchar(64) not null,
      "type_id" varchar(64) not null,
      "type_version" int not null,
      "package_version" varchar(32) not null,
      "version" int null,
      "last_published_version" int null,
      "name" varchar(255) not null,
      "description" text null,
      "status" text check ("status" in ('draft', 'modified', 'published', 'unpublished', 'deleted')) not null,
      "is_template" boolean not null,
      "content" jsonb not null,
      "compiled" text not null,
      "tags" jsonb not null,
      "folder_id" varchar(64) null,
      "metadata" jsonb not null,
      "created_by_id" varchar(64) not null,
      "created_at" timestamptz not null,
      "updated_at" timestamptz not null,
      "search_vector" tsvector generated always as (
        setweight(to_tsvector('english', coalesce("name", '')), 'A') ||
        setweight(to_tsvector('english', coalesce("description", '')), 'B') ||
        setweight(jsonb_to_tsvector('english', "content", '["string"]'), 'C')) stored);`);
    this.addSql('create index "content_project_updated_index" on "content" ("project_id", "updated_at", "id");');
    this.addSql('create index "content_project_type_index" on "content" ("project_id", "type_id");');
    this.addSql('create index "content_project_status_index" on "content" ("project_id", "status");');
    this.addSql('create index "content_tags_index" on "content" using gin ("tags" jsonb_path_ops);');
    this.addSql('create index "content_search_index" on "content" using gin ("search_vector");');
    this.addSql(`create table "content_version" (
      "id" varchar(64) primary key,
      "content_id" varchar(64) not null,
      "organization_id" varchar(64) not null,
      "project_id" varchar(64) not null,
      "version" int not null,
      "content" jsonb not null,
      "compiled" text not null,
      "created_by_id" varchar(64) not null,
      "created_at" timestamptz not null,
      constraint "content_version_content_id_version_unique" unique ("content_id", "version"));`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists "content_version", "content", "content_type_version";');
  }
}
