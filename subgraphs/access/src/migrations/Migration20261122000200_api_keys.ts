// API keys: one project each, stored only as a SHA-256 hash of the key.
import { Migration } from '@mikro-orm/migrations';

export class Migration20261122000200_api_keys extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "api_key" (
      "id" varchar(64) primary key,
      "organization_id" varchar(64) not null references "organization" ("id") deferrable initially deferred,
      "project_id" varchar(64) not null references "project" ("id") deferrable initially deferred,
      "name" varchar(255) not null,
      "description" text null,
      "key_hash" varchar(64) not null,
      "status" varchar(16) not null,
      "last_used" timestamptz null,
      "created_by_id" varchar(64) not null,
      "created_at" timestamptz not null,
      "updated_at" timestamptz not null,
      constraint "api_key_key_hash_unique" unique ("key_hash"));`);
    this.addSql(
      'create index "api_key_project_id_created_at_index" on "api_key" ("organization_id", "project_id", "created_at");',
    );
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists "api_key";');
  }
}
