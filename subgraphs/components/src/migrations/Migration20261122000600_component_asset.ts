// Files attached to components.
import { Migration } from '@mikro-orm/migrations';

export class Migration20261122000600_component_asset extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "component_asset" (
      "id" varchar(64) primary key,
      "component_id" varchar(64) not null,
      "organization_id" varchar(64) not null,
      "project_id" varchar(64) not null,
      "name" varchar(255) not null,
      "type" varchar(255) not null,
      "size" bigint not null,
      "checksum" varchar(64) null,
      "status" text check ("status" in ('uploading', 'processing', 'active', 'deleted', 'error')) not null,
      "metadata" jsonb not null,
      "tags" jsonb not null,
      "created_by_id" varchar(64) not null,
      "created_at" timestamptz not null,
      "updated_at" timestamptz not null);`);
    this.addSql(
      'create index "component_asset_component_id_created_at_index" on "component_asset" ("component_id", "created_at");',
    );
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists "component_asset";');
  }
}
