// The published-read cache of the client family: byte-bounded LRU of finished responses, dropped per project by events.
import { FeedGate } from '@cp/config';
import { LRUCache } from 'lru-cache';

/** A finished 200 response, ready to be sent again byte for byte. */
export interface CachedResponse {
  contentType: string;
  body: Buffer;
  /** Strong validator: `"<sha256 of the body, base64url>"`. */
  etag: string;
  /** `Surrogate-Key` value (space separated); `Cache-Tag` is the same list, comma separated. */
  surrogateKeys: string;
}

interface Entry extends CachedResponse {
  projectId: string;
}

/** What a fill captured when it started; a store is refused when the project moved on meanwhile. */
export interface FillTicket {
  projectId: string;
  generation: number;
  epoch: number;
}

export interface CacheStats {
  hits: number;
  misses: number;
  /** Lookups answered from the database because this replica had not yet read announced events. */
  bypasses: number;
  bytes: number;
  entries: number;
  evictions: number;
  /** Project drops (each drops every entry of the project). */
  invalidations: number;
  /** Fills refused because an event of their project arrived while they ran. */
  staleFills: number;
}

export interface ReadCacheOptions {
  maxBytes: number;
  /**
   * The event position this replica has applied (EventFeed.position). Lookups and stores are refused while an
   * announced position is above it: see `announced`.
   */
  appliedPosition: () => bigint;
}

/** Fixed per-entry overhead counted on top of key and body, so tiny bodies cannot make the count meaningless. */
const ENTRY_OVERHEAD = 256;

/**
 * Correctness: an entry may only be served while no event of its project is known to this replica
 * that is newer than the data it holds. Three rules give that:
 * 1. A fill takes a ticket (the project's generation) *before* it reads the database; `invalidateProject` bumps the
 *    generation and deletes the project's entries; `store` refuses a ticket whose generation moved. So an answer
 *    read before a change was committed either is refused at store time or is deleted when the change's event is
 *    applied — it never survives the event.
 * 2. Between the commit of a change and the application of its event here (the event gets its position from the
 *    dispatcher, is announced through the broker, then this replica's EventFeed reads it), the cache may still hold
 *    the old answer. `announced(position)` runs the moment the broker's notification arrives, before the feed has
 *    read the events: from then until `appliedPosition()` reaches it, every lookup goes to the database and no
 *    fill is stored. Writers answer only after the broker took an announcement covering their events (the gateway
 *    awaits `EventDispatcher.settle()` for mutations; see AnnouncingBroker.publish and EventDispatcher.pass), so the
 *    notification is on its way to every replica before the writer's client gets its response: the next read
 *    anywhere sees the new state.
 * 3. The key holds the project of the authenticated principal, so one project's entry can't answer another's key.
 */
export class ReadCache {
  private readonly lru: LRUCache<string, Entry>;
  private readonly keysByProject = new Map<string, Set<string>>();
  private readonly generations = new Map<string, number>();
  private epoch = 0;
  private readonly feed: FeedGate;
  private readonly counters = { hits: 0, misses: 0, bypasses: 0, evictions: 0, invalidations: 0, staleFills: 0 };

  constructor(options: ReadCacheOptions) {
    this.feed = new FeedGate(options.appliedPosition);
    this.lru = new LRUCache<string, Entry>({
      maxSize: options.maxBytes,
      sizeCalculation: (entry, key) => entry.body.length + key.length * 2 + entry.surrogateKeys.length + ENTRY_OVERHEAD,
      dispose: (entry, key, reason) => {
        if (reason === 'evict') this.counters.evictions++;
        if (reason === 'set') return; // replaced by a fresher entry under the same key: still indexed
        const keys = this.keysByProject.get(entry.projectId);
        keys?.delete(key);
        if (keys?.size === 0) this.keysByProject.delete(entry.projectId);
      },
    });
  }

  get(key: string): CachedResponse | undefined {
    if (!this.feed.current) {
      this.counters.bypasses++;
      return undefined;
    }
    const entry = this.hit(key);
    if (!entry) this.counters.misses++;
    return entry;
  }

  /** Like `get`, but a miss isn't counted: the fast path peeks, and the full path that follows a miss counts it. */
  peek(key: string): CachedResponse | undefined {
    return this.feed.current ? this.hit(key) : undefined;
  }

  private hit(key: string): CachedResponse | undefined {
    const entry = this.lru.get(key);
    if (entry) this.counters.hits++;
    return entry;
  }

  ticket(projectId: string): FillTicket {
    return { projectId, generation: this.generations.get(projectId) ?? 0, epoch: this.epoch };
  }

  /** Keeps a fill unless its project changed (or this replica fell behind) since the ticket was taken. */
  store(ticket: FillTicket, key: string, response: CachedResponse): boolean {
    const fresh =
      ticket.epoch === this.epoch &&
      ticket.generation === (this.generations.get(ticket.projectId) ?? 0) &&
      this.feed.current;
    if (!fresh) {
      this.counters.staleFills++;
      return false;
    }
    this.lru.set(key, { ...response, projectId: ticket.projectId });
    if (!this.lru.has(key)) return false; // larger than the whole budget
    let keys = this.keysByProject.get(ticket.projectId);
    if (!keys) this.keysByProject.set(ticket.projectId, (keys = new Set()));
    keys.add(key);
    return true;
  }

  /** An event of the project: every entry of it goes, and fills in flight will not be stored. */
  invalidateProject(projectId: string): void {
    this.generations.set(projectId, (this.generations.get(projectId) ?? 0) + 1);
    this.counters.invalidations++;
    const keys = this.keysByProject.get(projectId);
    if (!keys) return;
    this.keysByProject.delete(projectId);
    for (const key of keys) this.lru.delete(key);
  }

  /** An event without a project (organization-level): nothing is known to be unaffected. */
  invalidateAll(): void {
    this.epoch++;
    this.counters.invalidations++;
    this.keysByProject.clear();
    this.lru.clear();
  }

  /** The broker announced events up to `position`; until they are applied, the cache stands aside (rule 2). */
  announced(position: bigint): void {
    this.feed.announced(position);
  }

  stats(): CacheStats {
    return { ...this.counters, bytes: this.lru.calculatedSize, entries: this.lru.size };
  }
}
