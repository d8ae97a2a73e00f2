// Leases on image variants being computed, so one replica computes each variant while the others wait for it.
import { Migration } from '@mikro-orm/migrations';

export class Migration20261128180000_image_variant_lease extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "image_variant_lease" (
      "key" varchar(512) primary key,
      "expires_at" timestamptz not null);`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists "image_variant_lease";');
  }
}
