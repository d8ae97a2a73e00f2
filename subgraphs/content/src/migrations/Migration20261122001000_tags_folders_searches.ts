// Tags, folders and saved searches.
import { Migration } from '@mikro-orm/migrations';

export class Migration20261122001000_tags_folders_searches extends Migration {
  override async up(): Promise<void> {
    for (const [table, extra] of [
      ['tag', '"color" varchar(32) null'],
      ['folder', '"parent_id" varchar(64) null, "path" text not null'],
      ['saved_search', '"description" text null, "query" jsonb not null, "created_by_id" varchar(64) not null'],
    ]) {
      this.addSql(`create table "${table}" (
        "id" varchar(64) primary key,
        "organization_id" varchar(64) not null,
        "project_id" varchar(64) not null,
        "name" varchar(255) not null,
        ${extra},
        "created_at" timestamptz not null,
        "updated_at" timestamptz not null,
        constraint "${table}_project_id_name_unique" unique ("project_id", "name"));`);
    }
    this.addSql('create index "folder_project_path_index" on "folder" ("project_id", "path");');
    this.addSql('create index "content_folder_index" on "content" ("project_id", "folder_id");');
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists "saved_search", "folder", "tag";');
  }
}
