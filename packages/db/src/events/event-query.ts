// Reading events: one filter shape for the event API, SSE replay and live delivery; cursors are opaque positions.
import { BadRequestError } from '@cp/errors';
import type { Visibility } from '@cp/principal';
import { decodeCursor, encodeCursor, parseLimit, type CursorPagination, type ListPage } from '../pagination';
import type { EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import { EventRecord } from './event.entity';

export interface EventFilter {
  organizationId: string;
  projectId: string;
  resourceType?: string;
  resourceId?: string;
  /** Exact event type, e.g. `content.published`. */
  type?: string;
  since?: Date;
  /**
   * Whose events: API keys see published-state events only; preview keys also every event of content, content
   * types and components (what an admin of the project sees of them); admins everything.
   */
  visibility: Visibility;
}

/** The resources whose working state a preview key reads, so all of whose events it receives. */
export const PREVIEW_EVENT_RESOURCES: readonly EventRecord['resourceType'][] = [
  'content',
  'content-types',
  'components',
];

function visibleTo(event: EventRecord, visibility: Visibility): boolean {
  if (visibility === 'admin' || event.published) return true;
  return visibility === 'preview' && PREVIEW_EVENT_RESOURCES.includes(event.resourceType);
}

function visibleWhere(visibility: Visibility): Record<string, unknown> {
  if (visibility === 'admin') return {};
  if (visibility === 'published') return { published: true };
  return { $or: [{ published: true }, { resourceType: { $in: [...PREVIEW_EVENT_RESOURCES] } }] };
}

export function eventCursor(event: EventRecord): string {
  return encodeCursor({ value: String(event.position), id: event.id });
}

/** The position a cursor (or SSE `Last-Event-ID`) stands for; anything else is 400 naming the parameter. */
export function positionOf(cursor: string, parameter = 'lastKey'): bigint {
  const { value } = decodeCursor(cursor, parameter);
  // At most 18 digits: always within `bigint`, so an SSE resume can't fail in the database after its 200 went out.
  if (!/^\d{1,18}$/.test(value)) throw new BadRequestError(`${parameter} is not a valid cursor.`, { parameter });
  return BigInt(value);
}

export function matches(event: EventRecord, filter: EventFilter): boolean {
  return (
    event.organizationId === filter.organizationId &&
    event.projectId === filter.projectId &&
    (!filter.resourceType || event.resourceType === filter.resourceType) &&
    (!filter.resourceId || event.resourceId === filter.resourceId) &&
    (!filter.type || event.type === filter.type) &&
    (!filter.since || event.occurredAt >= filter.since) &&
    visibleTo(event, filter.visibility)
  );
}

function where(filter: EventFilter, after: bigint): FilterQuery<EventRecord> {
  return {
    organizationId: filter.organizationId,
    projectId: filter.projectId,
    position: { $gt: String(after) },
    ...(filter.resourceType ? { resourceType: filter.resourceType as EventRecord['resourceType'] } : {}),
    ...(filter.resourceId ? { resourceId: filter.resourceId } : {}),
    ...(filter.type ? { type: filter.type } : {}),
    ...(filter.since ? { occurredAt: { $gte: filter.since } } : {}),
    ...visibleWhere(filter.visibility),
  };
}

/** Oldest first, after `after` (a position), at most `limit`. */
export function readEvents(
  em: EntityManager,
  filter: EventFilter,
  after: bigint,
  limit: number,
): Promise<EventRecord[]> {
  return em.find(EventRecord, where(filter, after), { orderBy: { position: 'asc' }, limit });
}

/** The event API's page: oldest first, cursor pagination. */
export async function listEvents(
  em: EntityManager,
  filter: EventFilter,
  args: { limit?: number | null; lastKey?: string | null; afterKey?: string | null },
): Promise<ListPage<EventRecord, CursorPagination>> {
  const limit = parseLimit(args.limit);
  const cursor = args.lastKey ?? args.afterKey;
  const after = cursor ? positionOf(cursor, args.lastKey ? 'lastKey' : 'afterKey') : 0n;
  const rows = await readEvents(em, filter, after, limit + 1);
  const data = rows.slice(0, limit);
  return { data, pagination: rows.length > limit ? { lastKey: eventCursor(data[data.length - 1]) } : {} };
}

/** The highest position readers can see now: live streams start after it. */
export async function currentPosition(em: EntityManager): Promise<bigint> {
  const [row] = await em
    .getConnection()
    .execute<{ max: string | null }[]>('select max("position")::text as max from "event"');
  return BigInt(row?.max ?? 0);
}
