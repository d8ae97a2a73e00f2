// The asset table.
import { Migration } from '@mikro-orm/migrations';

export class Migration20261122000400_asset extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "asset" (
      "id" varchar(64) primary key,
      "organization_id" varchar(64) not null,
      "project_id" varchar(64) not null,
      "name" varchar(255) not null,
      "type" varchar(255) not null,
      "size" bigint not null,
      "checksum" varchar(64) not null,
      "status" varchar(16) not null,
      "tags" jsonb not null,
      "folder_id" varchar(64) null,
      "metadata" jsonb not null,
      "created_by_id" varchar(64) not null,
      "created_at" timestamptz not null,
      "updated_at" timestamptz not null);`);
    this.addSql('create index "asset_project_id_created_at_index" on "asset" ("project_id", "created_at");');
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists "asset";');
  }
}
