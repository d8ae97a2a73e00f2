// In-process cache of what authentication reads from the database (API keys; users with their role), dropped by access events.
import { FeedGate } from '@cp/config';
import type { ApiKeyPrincipal, Permissions } from '@cp/graphql';

/** The parts of an access event (D9 event row) that decide what to drop. */
export interface AccessChange {
  resourceType: string;
  resourceId: string;
  organizationId: string;
  projectId?: string | null;
}

/** The resource types whose changes can alter who may do what. */
export const ACCESS_RESOURCE_TYPES: ReadonlySet<string> = new Set([
  'api-keys',
  'users',
  'roles',
  'projects',
  'organizations',
]);

export interface CachedUser {
  tokensValidAfter: number;
  permissions: Permissions;
}

interface Entry<T> {
  value: T;
  expiresAt: number;
}

const MAX_ENTRIES = 50_000;

/**
 * Every replica keeps its own copy and drops entries when an access event reaches it through the event broker
 * (LISTEN/NOTIFY, Redis or NATS: broadcast, not polling), so a revoked key or removed user is refused everywhere
 * within the event fan-out delay. The TTL is only a safety net for a lost notification.
 *
 * A lookup that started before an invalidation must not store its (possibly stale) answer after it: callers take
 * a `ticket()` before reading the database and `set…` stores only if no invalidation happened since.
 *
 * Between an access change's commit and its event reaching this replica's feed, an entry could still answer with the
 * old principal. A write answers only after its announcement left (the gateway awaits `EventDispatcher.settle()`), and
 * from the moment an announcement arrives (`announced`) until the feed has applied it (`follow`), every lookup reads
 * the database and nothing is stored: a key revoked on one replica is refused by the next request on any replica,
 * the same rule the published-read cache follows (docs/architecture/read-cache.md).
 */
export class PrincipalCache {
  /** key hash → principal. */
  private readonly keys = new Map<string, Entry<ApiKeyPrincipal>>();
  /** `${organizationId}/${userId}` → user row facts. */
  private readonly users = new Map<string, Entry<CachedUser>>();
  private generation = 0;
  /** Until a host calls `follow`, whatever was announced counts as applied. */
  private readonly feed = new FeedGate();

  constructor(private readonly ttlMs: number) {}

  /** Ties the cache to the feed that applies this replica's events (EventFeed.position). */
  follow(appliedPosition: () => bigint): void {
    this.feed.follow(appliedPosition);
  }

  /** The broker announced events up to `position`; until they are applied, the cache stands aside. */
  announced(position: bigint): void {
    this.feed.announced(position);
  }

  get enabled(): boolean {
    return this.ttlMs > 0;
  }

  ticket(): number {
    return this.generation;
  }

  getKey(hash: string): ApiKeyPrincipal | undefined {
    return this.read(this.keys, hash);
  }

  setKey(ticket: number, hash: string, principal: ApiKeyPrincipal): void {
    this.write(this.keys, ticket, hash, principal);
  }

  getUser(organizationId: string, userId: string): CachedUser | undefined {
    return this.read(this.users, `${organizationId}/${userId}`);
  }

  setUser(ticket: number, organizationId: string, userId: string, user: CachedUser): void {
    this.write(this.users, ticket, `${organizationId}/${userId}`, user);
  }

  /** Drops whatever `change` can affect; answers whether it was an access change at all. */
  invalidate(change: AccessChange): boolean {
    if (!ACCESS_RESOURCE_TYPES.has(change.resourceType)) return false;
    this.generation++;
    const org = change.organizationId;
    switch (change.resourceType) {
      case 'api-keys':
        for (const [hash, entry] of this.keys) if (entry.value.keyId === change.resourceId) this.keys.delete(hash);
        break;
      case 'users':
        this.users.delete(`${org}/${change.resourceId}`);
        break;
      case 'roles':
        // Which users hold the role is not in the cache: drop the organization's users (role changes are rare).
        for (const id of this.users.keys()) if (id.startsWith(`${org}/`)) this.users.delete(id);
        break;
      default:
        // A project or organization change: drop everything of the organization.
        for (const [hash, entry] of this.keys) if (entry.value.organizationId === org) this.keys.delete(hash);
        for (const id of this.users.keys()) if (id.startsWith(`${org}/`)) this.users.delete(id);
    }
    return true;
  }

  clear(): void {
    this.generation++;
    this.keys.clear();
    this.users.clear();
  }

  private read<T>(map: Map<string, Entry<T>>, id: string): T | undefined {
    if (!this.feed.current) return undefined;
    const entry = map.get(id);
    if (!entry) return undefined;
    if (entry.expiresAt <= Date.now()) {
      map.delete(id);
      return undefined;
    }
    return entry.value;
  }

  private write<T>(map: Map<string, Entry<T>>, ticket: number, id: string, value: T): void {
    if (!this.enabled || ticket !== this.generation || !this.feed.current) return;
    // Bounded: a flood of distinct credentials can't grow memory without limit (valid ones only ever get here).
    if (map.size >= MAX_ENTRIES) map.clear();
    map.set(id, { value, expiresAt: Date.now() + this.ttlMs });
  }
}
