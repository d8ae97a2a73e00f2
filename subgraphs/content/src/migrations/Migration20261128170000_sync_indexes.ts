// Indexes that let a sync read only what changed: the feed of a project's content events, each entry's later
// events, and the projection and working rows by id within a project.
import { Migration } from '@mikro-orm/migrations';

/**
 * A published key's delta reads its project's published-state content events after a position
 * (`event_content_sync_index`, which carries what the delta answers, so the rows of other resources and draft edits
 * are never read), then asks per entry whether a later such event exists (`event_content_resource_index`, one probe
 * that stops at the first). Preview keys' deltas read every content event of the project on the event table's
 * project index; they are rare enough not to cost every write a third index entry. An initial sync pages through the
 * projection (published keys) or the working rows (preview keys) by id within the project.
 */
export class Migration20261128170000_sync_indexes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create index "event_content_sync_index" on "event" ("organization_id", "project_id", "position")
      include ("resource_id", "occurred_at") where "resource_type" = 'content' and "published";`);
    this.addSql(`create index "event_content_resource_index" on "event" ("resource_id", "position")
      include ("published") where "resource_type" = 'content';`);
    this.addSql(
      'create index "published_content_project_id_index" on "published_content" ("organization_id", "project_id", "id");',
    );
    this.addSql('create index "content_project_id_index" on "content" ("organization_id", "project_id", "id");');
  }

  override async down(): Promise<void> {
    this.addSql(
      'drop index if exists "event_content_sync_index", "event_content_resource_index", "published_content_project_id_index", "content_project_id_index";',
    );
  }
}
