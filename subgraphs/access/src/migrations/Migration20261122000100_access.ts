// Tables of the access subgraph: organizations, projects, roles, users.
import { Migration } from '@mikro-orm/migrations';

export class Migration20261122000100_access extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "organization" (
      "id" varchar(64) primary key,
      "name" varchar(255) not null,
      "created_at" timestamptz not null,
      "updated_at" timestamptz not null);`);
    this.addSql(`create table "project" (
      "id" varchar(64) primary key,
      "organization_id" varchar(64) not null references "organization" ("id") deferrable initially deferred,
      "name" varchar(255) not null,
      "description" text null,
      "created_at" timestamptz not null,
      "updated_at" timestamptz not null,
      "deleted_at" timestamptz null);`);
    this.addSql(
      'create index "project_organization_id_created_at_index" on "project" ("organization_id", "created_at");',
    );
    this.addSql(`create table "role" (
      "id" varchar(64) primary key,
      "organization_id" varchar(64) not null references "organization" ("id") deferrable initially deferred,
      "name" varchar(255) not null,
      "description" text null,
      "permissions" jsonb not null,
      "created_at" timestamptz not null,
      "updated_at" timestamptz not null,
      constraint "role_organization_id_name_unique" unique ("organization_id", "name"));`);
    this.addSql('create index "role_organization_id_created_at_index" on "role" ("organization_id", "created_at");');
    this.addSql(`create table "user" (
      "id" varchar(64) primary key,
      "organization_id" varchar(64) not null references "organization" ("id") deferrable initially deferred,
      "email" varchar(255) not null,
      "name" varchar(255) not null,
      "role_id" varchar(64) not null references "role" ("id") deferrable initially deferred,
      "password_hash" varchar(255) not null,
      "tokens_valid_after" timestamptz not null,
      "created_at" timestamptz not null,
      "updated_at" timestamptz not null,
      constraint "user_email_unique" unique ("email"));`);
    this.addSql('create index "user_organization_id_created_at_index" on "user" ("organization_id", "created_at");');
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists "user", "role", "project", "organization";');
  }
}
