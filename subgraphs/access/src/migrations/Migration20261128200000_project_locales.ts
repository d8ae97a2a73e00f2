// A project's locales: `[{code, fallback?, default?}]`; every existing project serves English only.
import { Migration } from '@mikro-orm/migrations';

export class Migration20261128200000_project_locales extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "project" add column if not exists "locales" jsonb not null default '[{"code": "en", "fallback": null, "default": true}]';`,
    );
  }

  override async down(): Promise<void> {
    this.addSql('alter table "project" drop column if exists "locales";');
  }
}
