// A stored answer remembers the permissions its first request was granted, so a replay re-checks them.
import { Migration } from '@mikro-orm/migrations';

export class Migration20261125120000_idempotency_permissions extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "idempotency_key" add column "permissions" jsonb null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "idempotency_key" drop column "permissions";`);
  }
}
