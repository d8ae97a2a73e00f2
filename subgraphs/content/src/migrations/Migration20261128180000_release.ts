// Releases: publish and unpublish actions on entries and content types, applied together.
import { Migration } from '@mikro-orm/migrations';

export class Migration20261128180000_release extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "release" (
      "id" varchar(64) not null primary key,
      "organization_id" varchar(64) not null,
      "project_id" varchar(64) not null,
      "name" varchar(255) not null,
      "description" text null,
      "status" text check ("status" in ('open', 'published', 'failed')) not null default 'open',
      "items" jsonb not null default '[]',
      "published_at" timestamptz null,
      "created_by_id" varchar(64) not null,
      "revision" int not null default 1,
      "created_at" timestamptz not null,
      "updated_at" timestamptz not null
    );`);
    this.addSql('create index "release_project_id_created_at_index" on "release" ("project_id", "created_at");');
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists "release";');
  }
}
