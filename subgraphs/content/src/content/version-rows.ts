// A batch's new content versions written in one statement: through the unit of work, each of a hundred versions of a
// release would be snapshotted, compared and formatted into SQL text one entity at a time.
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, wellFormed } from '@cp/db';
import { randomUUID } from 'node:crypto';
import type { ContentVersion } from './content.entity';

/** A version row as `tx.create(ContentVersion, …)` would take it. */
export type NewVersion = Pick<
  ContentVersion,
  | 'contentId'
  | 'organizationId'
  | 'projectId'
  | 'version'
  | 'content'
  | 'compiled'
  | 'links'
  | 'createdById'
  | 'createdAt'
>;

/** Inserts `rows` at once, now, each with a new id as the entity would give it. */
export async function insertVersions(tx: EntityManager, rows: readonly NewVersion[]): Promise<void> {
  if (rows.length === 0) return;
  const records = rows.map((row) => ({
    id: randomUUID(),
    content_id: row.contentId,
    organization_id: row.organizationId,
    project_id: row.projectId,
    version: row.version,
    content: row.content,
    compiled: wellFormed(row.compiled),
    links: row.links,
    created_by_id: row.createdById,
    created_at: row.createdAt,
  }));
  await sql(
    tx,
    `insert into "content_version" ("id", "content_id", "organization_id", "project_id", "version", "content", "compiled", "links", "created_by_id", "created_at")
      select * from jsonb_to_recordset(?::jsonb) as r("id" varchar, "content_id" varchar, "organization_id" varchar,
        "project_id" varchar, "version" int, "content" jsonb, "compiled" text, "links" jsonb, "created_by_id" varchar,
        "created_at" timestamptz)`,
    [JSON.stringify(records)],
    true,
  );
}
