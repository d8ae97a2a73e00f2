// Sentence embeddings of content entries for semantic search, refreshed off the request path.
import { Migration } from '@mikro-orm/migrations';

export class Migration20261122001100_content_embedding extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "content_embedding" (
      "content_id" varchar(64) primary key,
      "organization_id" varchar(64) not null,
      "project_id" varchar(64) not null,
      "vector" real[] not null,
      "source_updated_at" timestamptz not null);`);
    this.addSql(
      'create index "content_embedding_project_index" on "content_embedding" ("organization_id", "project_id");',
    );
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists "content_embedding";');
  }
}
