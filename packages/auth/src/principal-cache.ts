// In-process cache of what authentication reads from the database (API keys; users with their role), dropped by access events.
import { FeedCache } from '@cp/config';
import type { ApiKeyPrincipal, Permissions } from '@cp/principal';

/** The parts of an access event (its row in the event table) that decide what to drop. */
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

/** Per kind of entry: a flood of distinct credentials can't grow memory without limit (valid ones only get here). */
const MAX_ENTRIES = 50_000;

/**
 * Each replica's copy follows the event feed under FeedCache's rule (packages/config/src/feed-cache.ts): access events
 * drop what they change, a lookup that raced an invalidation stores nothing, and from an announcement until the feed
 * has applied it every lookup reads the database. A write answers only after its announcement left (the gateway
 * awaits `EventDispatcher.settle()`), so a key revoked on one replica is refused by the next request on any replica.
 */
export class PrincipalCache {
  /** key hash → principal. */
  private readonly keys: FeedCache<ApiKeyPrincipal>;
  /** `${organizationId}/${userId}` → user row facts. */
  private readonly users: FeedCache<CachedUser>;

  /** A zero `ttlMs` (hosts that get no access events) caches nothing. */
  constructor(ttlMs: number) {
    this.keys = new FeedCache(ttlMs, MAX_ENTRIES);
    this.users = new FeedCache(ttlMs, MAX_ENTRIES);
  }

  /** Ties the cache to the feed that applies this replica's events (EventFeed.position). */
  follow(appliedPosition: () => bigint): void {
    this.keys.follow(appliedPosition);
    this.users.follow(appliedPosition);
  }

  /** The broker announced events up to `position`; until they are applied, the cache stands aside. */
  announced(position: bigint): void {
    this.keys.announced(position);
    this.users.announced(position);
  }

  getKey(hash: string): ApiKeyPrincipal | undefined {
    return this.keys.get(hash);
  }

  /** `read` looks the key up in the database (throwing when it is refused); its principal is cached. */
  loadKey(hash: string, read: () => Promise<ApiKeyPrincipal>): Promise<ApiKeyPrincipal> {
    return this.keys.load(hash, read);
  }

  getUser(organizationId: string, userId: string): CachedUser | undefined {
    return this.users.get(`${organizationId}/${userId}`);
  }

  /** `read` looks the user up in the database; a missing user is not cached. */
  loadUser(
    organizationId: string,
    userId: string,
    read: () => Promise<CachedUser | undefined>,
  ): Promise<CachedUser | undefined> {
    return this.users.load(`${organizationId}/${userId}`, read);
  }

  /** Drops whatever `change` can affect; other than access changes, nothing. */
  invalidate(change: AccessChange): void {
    const org = change.organizationId;
    const ofOrg = (id: string) => id.startsWith(`${org}/`);
    switch (change.resourceType) {
      case 'api-keys':
        this.keys.dropWhere((_, principal) => principal.keyId === change.resourceId);
        break;
      case 'users':
        this.users.drop(`${org}/${change.resourceId}`);
        break;
      case 'roles':
        // Which users hold the role is not in the cache: drop the organization's users (role changes are rare).
        this.users.dropWhere(ofOrg);
        break;
      case 'projects':
      case 'organizations':
        this.keys.dropWhere((_, principal) => principal.organizationId === org);
        this.users.dropWhere(ofOrg);
    }
  }
}
