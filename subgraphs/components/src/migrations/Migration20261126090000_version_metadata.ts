// A component version keeps the metadata and collection it was published with: API keys read them from it.
import { Migration } from '@mikro-orm/migrations';

/**
 * Nullable: versions published before this migration have neither, and the published view then takes them from the
 * working row only while it is unchanged since (`published-components.ts`). Adding columns changes no stored value,
 * so the versions stay immutable (their trigger refuses UPDATE and DELETE, not DDL).
 */
export class Migration20261126090000_version_metadata extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      'alter table "component_version" add column if not exists "metadata" jsonb, add column if not exists "collection_id" varchar(64);',
    );
  }

  override async down(): Promise<void> {
    this.addSql(
      'alter table "component_version" drop column if exists "metadata", drop column if exists "collection_id";',
    );
  }
}
