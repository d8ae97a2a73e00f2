// A replica's in-process cache dropped by events: the freshness rule the principal and project-existence caches share.
import { FeedGate } from './feed-gate';

interface Entry<T> {
  value: T;
  expiresAt: number;
}

/**
 * Every replica keeps its own copy and drops entries when the events that change them reach it: as its event feed
 * applies them (broadcast through the broker) and, for this process's own writes, as they are flushed and committed.
 * The TTL is only a safety net for a lost notification. Two rules keep an answer read before a change from outliving
 * the change's event:
 * - `load` takes a ticket before it reads the database and stores its answer only if nothing was dropped since;
 * - from the moment the broker announces events (`announced`) until the feed has applied them (`follow`), nothing is
 *   answered and nothing is stored (FeedGate, the published-read cache's rule: docs/architecture/read-cache.md).
 */
export class FeedCache<T> {
  private readonly entries = new Map<string, Entry<T>>();
  private generation = 0;
  /** Until a host calls `follow`, whatever was announced counts as applied. */
  private readonly feed = new FeedGate();

  /** A zero `ttlMs` stores nothing; beyond `maxEntries` the cache starts over, so a flood can't grow it unbounded. */
  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
  ) {}

  /** Ties the cache to the feed that applies this replica's events (EventFeed.position). */
  follow(appliedPosition: () => bigint): void {
    this.feed.follow(appliedPosition);
  }

  /** The broker announced events up to `position`; until they are applied, the cache stands aside. */
  announced(position: bigint): void {
    this.feed.announced(position);
  }

  get(key: string): T | undefined {
    if (!this.feed.current) return undefined;
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= Date.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  /** Reads through `read` and stores a defined answer, unless a drop raced the read or the feed is behind. */
  async load<R extends T | undefined>(key: string, read: () => Promise<R>): Promise<R> {
    const ticket = this.generation;
    const value = await read();
    if (value !== undefined && this.ttlMs > 0 && ticket === this.generation && this.feed.current) {
      if (this.entries.size >= this.maxEntries) this.entries.clear();
      this.entries.set(key, { value, expiresAt: Date.now() + this.ttlMs });
    }
    return value;
  }

  /** Drops `key`; a load in flight stores nothing. */
  drop(key: string): void {
    this.generation++;
    this.entries.delete(key);
  }

  /** Drops every entry `affected` picks; a load in flight stores nothing. */
  dropWhere(affected: (key: string, value: T) => boolean): void {
    this.generation++;
    for (const [key, entry] of this.entries) if (affected(key, entry.value)) this.entries.delete(key);
  }
}
