// What a sync reads of the event feed: its highest position, a project's content events after a position, and
// which entries changed again later.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { SyncBinding } from './sync-token';

/** The newest event of an entry in a batch: its position and when it happened. */
export interface FeedEvent {
  id: string;
  position: string;
  occurredAt: Date;
}

/**
 * A PostgreSQL array literal of ids, passed as one text parameter: the query's SQL stays the same whatever the count
 * (the driver would spread a JavaScript array into one placeholder per element).
 */
export function textArray(values: readonly string[]): string {
  return `{${values.map((v) => `"${v.replace(/["\\]/g, (c) => `\\${c}`)}"`).join(',')}}`;
}

/**
 * The highest numbered position. Positions are given after commit, one dispatcher at a time, so every event at or below
 * it belongs to a change that had committed before this read: a projection read after it reflects them all.
 */
export async function feedPosition(em: EntityManager): Promise<string> {
  const [row] = await em
    .getConnection()
    .execute<{ at: string }[]>(`select coalesce(max("position"), 0)::text as "at" from "event"`);
  return row!.at;
}

/**
 * The events that can move what the binding's view sees: for published keys those flagged as published-state changes
 * (a draft edit is not one), for preview keys every content event.
 */
const relevant = (binding: SyncBinding, alias: string) =>
  `${alias}."resource_type" = 'content'${binding.view === 'published' ? ` and ${alias}."published"` : ''}`;

/** The first `limit` relevant events of the project after `after`, in feed order (`event_content_sync_index`). */
export async function eventsAfter(
  em: EntityManager,
  binding: SyncBinding,
  after: string,
  limit: number,
): Promise<FeedEvent[]> {
  const rows = await em.getConnection().execute<{ id: string; position: string; occurredAt: string | Date }[]>(
    `select e."resource_id" as "id", e."position"::text as "position", e."occurred_at" as "occurredAt"
       from "event" e
      where e."organization_id" = ? and e."project_id" = ? and ${relevant(binding, 'e')} and e."position" > ?
      order by e."position" limit ?`,
    [binding.organizationId, binding.projectId, after, limit],
  );
  // The driver leaves timestamps as text (the ORM maps dates itself).
  return rows.map((row) => ({ ...row, occurredAt: new Date(row.occurredAt) }));
}

/**
 * Those of `ids` with a relevant event after `after`: a delta answers an entry at its last event, so each appears once.
 * One index probe per id that stops at the first later event (`event_content_resource_index`): a lateral `limit 1`,
 * so the planner never trades the probes for a scan of the feed's tail.
 */
export async function changedAgainAfter(
  em: EntityManager,
  binding: SyncBinding,
  ids: readonly string[],
  after: string,
): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await em.getConnection().execute<{ id: string }[]>(
    `select r."id" from unnest(?::varchar[]) as r("id")
      cross join lateral (select 1 from "event" e
        where e."resource_id" = r."id" and ${relevant(binding, 'e')} and e."position" > ? limit 1) later`,
    [textArray(ids), after],
  );
  return new Set(rows.map((r) => r.id));
}
