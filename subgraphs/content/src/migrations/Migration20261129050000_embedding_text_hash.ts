// The text each stored embedding was computed from, by hash: a text already embedded for an entry is not embedded again.
import { Migration } from '@mikro-orm/migrations';

/**
 * Null for embeddings stored before: such an entry is embedded again on its next change, as it always was.
 */
export class Migration20261129050000_embedding_text_hash extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table "content_embedding" add column "text_hash" text;');
    this.addSql('alter table "published_content_embedding" add column "text_hash" text;');
  }

  override async down(): Promise<void> {
    this.addSql('alter table "content_embedding" drop column if exists "text_hash";');
    this.addSql('alter table "published_content_embedding" drop column if exists "text_hash";');
  }
}
