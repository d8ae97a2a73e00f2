// A key's `scope`, fixed at creation — `published` (every existing key) or `preview` (reads the working state).
import { Migration } from '@mikro-orm/migrations';

export class Migration20261125150000_api_key_scope extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "api_key" add column if not exists "scope" varchar(16) not null default 'published';`);
    this.addSql(`alter table "api_key" add constraint "api_key_scope_check"
      check ("scope" in ('published', 'preview'));`);
  }

  override async down(): Promise<void> {
    this.addSql('alter table "api_key" drop column if exists "scope";');
  }
}
