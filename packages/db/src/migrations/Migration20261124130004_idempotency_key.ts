// Stored answers of requests sent with `Idempotency-Key`, per caller, kept 24 hours; shared by every replica.
import { Migration } from '@mikro-orm/migrations';

export class Migration20261124130004_idempotency_key extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "idempotency_key" (
      "caller" varchar(128) not null,
      "key" varchar(255) not null,
      "fingerprint" varchar(64) not null,
      "state" varchar(16) not null,
      "response_status" int null,
      "response_headers" jsonb null,
      "response_body" text null,
      "started_at" timestamptz not null default now(),
      "expires_at" timestamptz not null,
      primary key ("caller", "key")
    );`);
    this.addSql('create index "idempotency_key_expires_at_index" on "idempotency_key" ("expires_at");');
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists "idempotency_key";');
  }
}
