// Version rows of content types and content can never change or disappear, whatever the application does.
import { immutableRowsSql } from '@cp/db';
import { Migration } from '@mikro-orm/migrations';

export class Migration20261122001200_immutable_versions extends Migration {
  override async up(): Promise<void> {
    for (const sql of [...immutableRowsSql('content_type_version'), ...immutableRowsSql('content_version')])
      this.addSql(sql);
  }

  override async down(): Promise<void> {
    this.addSql('drop trigger if exists "content_type_version_immutable" on "content_type_version";');
    this.addSql('drop trigger if exists "content_version_immutable" on "content_version";');
  }
}
