// Answers "does this project exist in this organization" for the authorization guards of every subgraph.
import { FeedGate } from '@cp/config';
import type { ProjectDirectory } from '@cp/graphql';
import type { MikroORM } from '@mikro-orm/postgresql';
import { onEventsFlushed } from './events/record-event';

/** A safety net for a lost notification only: entries are dropped by the events that change them. */
const TTL_MS = 10_000;
const MAX_ENTRIES = 10_000;

/** The parts of an event (D9 row) that decide what to drop. */
export interface ProjectChange {
  resourceType: string;
  resourceId: string;
  organizationId: string;
}

/**
 * Reads the access subgraph's `project` table. Positive answers are cached only in a process that follows the event
 * feed (`follow`, the gateway), under the principal cache's rule (packages/auth/src/principal-cache.ts): this process's
 * own project and organization changes drop their entries as they are flushed, before their response is sent; another
 * replica's as their events arrive, and from an announcement until the feed has applied it nothing is read from or
 * stored in the cache. A deleted project is then refused by the next request anywhere, as a revoked key is. Elsewhere
 * (standalone subgraph services) every check reads the table.
 */
export class SqlProjectDirectory implements ProjectDirectory {
  private readonly seen = new Map<string, number>();
  private generation = 0;
  private feed?: FeedGate;

  constructor(private readonly orm: MikroORM) {
    onEventsFlushed(orm.em, (events) => events.forEach((event) => this.invalidate(event)));
  }

  /** Turns caching on, tied to the feed that applies this replica's events (EventFeed.position). */
  follow(appliedPosition: () => bigint): void {
    this.feed = new FeedGate(appliedPosition);
  }

  /** The broker announced events up to `position`; until they are applied, the cache stands aside. */
  announced(position: bigint): void {
    this.feed?.announced(position);
  }

  async exists(organizationId: string, projectId: string): Promise<boolean> {
    const key = `${organizationId}/${projectId}`;
    const cached = this.feed?.current ? this.seen.get(key) : undefined;
    if (cached !== undefined && Date.now() - cached < TTL_MS) return true;
    // A check that started before an invalidation must not store its (possibly stale) answer after it.
    const ticket = this.generation;
    const rows = await this.orm.em
      .getConnection()
      .execute('select 1 from "project" where "id" = ? and "organization_id" = ? and "deleted_at" is null', [
        projectId,
        organizationId,
      ]);
    if (rows.length === 0) return false;
    if (this.feed?.current && ticket === this.generation) {
      if (this.seen.size >= MAX_ENTRIES) this.seen.clear();
      this.seen.set(key, Date.now());
    }
    return true;
  }

  /** Drops what a project or organization change can affect (a deletion, a restore). */
  invalidate(change: ProjectChange): void {
    if (change.resourceType === 'projects') {
      this.generation++;
      this.seen.delete(`${change.organizationId}/${change.resourceId}`);
    } else if (change.resourceType === 'organizations') {
      this.generation++;
      for (const key of this.seen.keys()) if (key.startsWith(`${change.resourceId}/`)) this.seen.delete(key);
    }
  }
}

/** One per ORM: the resolvers' guards and the upload and CDN handlers share its cache and its invalidation. */
const directories = new WeakMap<MikroORM, SqlProjectDirectory>();

export function sqlProjectDirectory(orm: MikroORM): SqlProjectDirectory {
  let directory = directories.get(orm);
  if (!directory) directories.set(orm, (directory = new SqlProjectDirectory(orm)));
  return directory;
}
