// Ties this replica's event-dropped caches (project existence, principals) to its event feed, each the same way.
import { onEventsFlushed, type EventFeed, type EventRecord } from '@cp/db';
import type { EntityManager } from '@mikro-orm/postgresql';

/** A cache under FeedCache's rule (packages/config/src/feed-cache.ts) that says which events drop which entries. */
export interface EventDroppedCache {
  follow(appliedPosition: () => bigint): void;
  announced(position: bigint): void;
  invalidate(event: EventRecord): void;
}

/**
 * Each cache stands aside from an announcement until the feed has applied it, and drops what an event changes as the
 * feed applies it; this process's own writes (through `em`) drop their entries as they are flushed and committed,
 * before the response goes out.
 */
export function followFeed(
  feed: Pick<EventFeed, 'position' | 'onAnnounced' | 'onEvent'>,
  em: EntityManager,
  caches: EventDroppedCache[],
): void {
  for (const cache of caches) {
    cache.follow(() => feed.position);
    feed.onAnnounced((position) => cache.announced(position));
    feed.onEvent((event) => cache.invalidate(event));
    onEventsFlushed(em, (events) => events.forEach((event) => cache.invalidate(event)));
  }
}
