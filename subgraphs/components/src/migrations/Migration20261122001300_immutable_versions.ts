// Component version rows can never change or disappear, whatever the application does.
import { immutableRowsSql } from '@cp/db';
import { Migration } from '@mikro-orm/migrations';

export class Migration20261122001300_immutable_versions extends Migration {
  override async up(): Promise<void> {
    for (const sql of immutableRowsSql('component_version')) this.addSql(sql);
  }

  override async down(): Promise<void> {
    this.addSql('drop trigger if exists "component_version_immutable" on "component_version";');
  }
}
