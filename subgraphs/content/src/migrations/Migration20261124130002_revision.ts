// A `revision` on every resource that takes `If-Match`; MikroORM's versioned UPDATE grows it by one per change.
import { Migration } from '@mikro-orm/migrations';

const TABLES = ['content_type', 'content', 'tag', 'folder', 'saved_search'];

export class Migration20261124130002_revision extends Migration {
  override async up(): Promise<void> {
    for (const table of TABLES)
      this.addSql(`alter table "${table}" add column if not exists "revision" int not null default 1;`);
  }

  override async down(): Promise<void> {
    for (const table of TABLES) this.addSql(`alter table "${table}" drop column if exists "revision";`);
  }
}
