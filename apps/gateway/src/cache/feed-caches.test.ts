// The gateway's wiring of its event-dropped caches: the black-box replica tests can't tell a cache that stands aside
// from one that doesn't (the feed applies an announced event within milliseconds), so this checks it on a fake feed.
import { PrincipalCache } from '@cp/auth';
import { EventRecord, type EventFeed } from '@cp/db';
import type { ApiKeyPrincipal } from '@cp/graphql';
import type { EntityManager, EventSubscriber, FlushEventArgs } from '@mikro-orm/postgresql';
import { describe, expect, it } from 'vitest';
import { followFeed } from './feed-caches';

const principal: ApiKeyPrincipal = {
  kind: 'apiKey',
  keyId: 'k1',
  organizationId: 'o1',
  projectId: 'p1',
  scope: 'published',
};
const revoked = Object.assign(new EventRecord(), { resourceType: 'api-keys', resourceId: 'k1', organizationId: 'o1' });

/** An event feed and an entity manager whose announcements, applied events and flushes the test makes happen. */
function replica() {
  const announcedTo: ((position: bigint) => void)[] = [];
  const watchers: ((event: EventRecord) => void)[] = [];
  const flushWatchers: EventSubscriber[] = [];
  const feed = {
    position: 0n,
    onAnnounced: (listener: (position: bigint) => void) => {
      announcedTo.push(listener);
    },
    onEvent: (watcher: (event: EventRecord) => void) => {
      watchers.push(watcher);
      return () => undefined;
    },
  };
  const em = { getEventManager: () => ({ registerSubscriber: (s: EventSubscriber) => flushWatchers.push(s) }) };
  const cache = new PrincipalCache(60_000);
  followFeed(feed as Pick<EventFeed, 'position' | 'onAnnounced' | 'onEvent'>, em as unknown as EntityManager, [cache]);
  return {
    cache,
    announce: (position: bigint) => announcedTo.forEach((listener) => listener(position)),
    apply: (event: EventRecord, position: bigint) => {
      watchers.forEach((watcher) => watcher(event));
      feed.position = position;
    },
    flush: (event: EventRecord) =>
      flushWatchers.forEach((s) =>
        s.afterFlush?.({ em, uow: { getChangeSets: () => [{ entity: event }] } } as unknown as FlushEventArgs),
      ),
  };
}

describe('followFeed', () => {
  it('makes a cache stand aside from an announcement until the feed has applied it, which drops what it changed', async () => {
    const { cache, announce, apply } = replica();
    await cache.loadKey('hash', async () => principal);
    announce(1n);
    expect(cache.getKey('hash')).toBeUndefined();
    apply(revoked, 1n);
    expect(cache.getKey('hash')).toBeUndefined();
    await cache.loadKey('hash', async () => principal);
    expect(cache.getKey('hash')).toBeDefined();
  });

  it("drops what this process's own write changed as it is flushed, before any announcement", async () => {
    const { cache, flush } = replica();
    await cache.loadKey('hash', async () => principal);
    flush(revoked);
    expect(cache.getKey('hash')).toBeUndefined();
  });
});
