// Answers "does this project exist in this organization" for the authorization guards of every subgraph, and which
// locales it serves (the reads and writes of localized content).
import { FeedCache } from '@cp/config';
import { DEFAULT_LOCALES, type ProjectDirectory, type ProjectLocale } from '@cp/principal';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';

/** A safety net for a lost notification only: entries are dropped by the events that change them. */
const TTL_MS = 10_000;
const MAX_ENTRIES = 10_000;

/** The parts of an event (its row in the event table) that decide what to drop. */
export interface ProjectChange {
  resourceType: string;
  resourceId: string;
  organizationId: string;
}

/**
 * Reads the access subgraph's `project` table. Positive answers are cached only in a process that follows the event
 * feed (`follow`, the gateway), under FeedCache's rule (packages/config/src/feed-cache.ts): project and organization
 * changes drop their entries (this process's own as they are flushed, before their response is sent; another
 * replica's as their events arrive), and from an announcement until the feed has applied it nothing is read from or
 * stored in the cache. A deleted project is then refused by the next request anywhere, as a revoked key is. Elsewhere
 * (standalone subgraph services) every check reads the table.
 */
export class SqlProjectDirectory implements ProjectDirectory {
  /** `${organizationId}/${projectId}` → the project's record; only once `follow` turned caching on. */
  private cache?: FeedCache<ProjectRecord>;

  constructor(private readonly orm: MikroORM) {}

  /** Turns caching on, tied to the feed that applies this replica's events (EventFeed.position). */
  follow(appliedPosition: () => bigint): void {
    this.cache = new FeedCache(TTL_MS, MAX_ENTRIES);
    this.cache.follow(appliedPosition);
  }

  /** The broker announced events up to `position`; until they are applied, the cache stands aside. */
  announced(position: bigint): void {
    this.cache?.announced(position);
  }

  async exists(organizationId: string, projectId: string): Promise<boolean> {
    return (await this.record(organizationId, projectId)) !== undefined;
  }

  /**
   * Cached and dropped like `exists`: a project's locale change reaches every replica's next read as its deletion
   * does.
   */
  async locales(organizationId: string, projectId: string): Promise<readonly ProjectLocale[] | undefined> {
    return (await this.record(organizationId, projectId))?.locales;
  }

  private async record(organizationId: string, projectId: string): Promise<ProjectRecord | undefined> {
    const key = `${organizationId}/${projectId}`;
    const read = () => this.read(organizationId, projectId);
    return this.cache ? (this.cache.get(key) ?? (await this.cache.load(key, read))) : read();
  }

  /** Drops what a project or organization change can affect (a deletion, a restore). */
  invalidate(change: ProjectChange): void {
    if (change.resourceType === 'projects') this.cache?.drop(`${change.organizationId}/${change.resourceId}`);
    else if (change.resourceType === 'organizations')
      this.cache?.dropWhere((key) => key.startsWith(`${change.resourceId}/`));
  }

  /** The project's record when it exists, nothing otherwise: a missing project is not cached. */
  private async read(organizationId: string, projectId: string): Promise<ProjectRecord | undefined> {
    const locales = await readProjectLocales(this.orm.em, organizationId, projectId);
    return locales && { locales };
  }
}

/**
 * A live project's locales (its default list when it never set them), read from the access subgraph's `project`
 * table in `em`'s transaction when it has one; undefined when the project doesn't exist or is deleted.
 */
export async function readProjectLocales(
  em: EntityManager,
  organizationId: string,
  projectId: string,
): Promise<readonly ProjectLocale[] | undefined> {
  const rows: { locales: ProjectLocale[] | null }[] = await em
    .getConnection()
    .execute(
      'select "locales" from "project" where "id" = ? and "organization_id" = ? and "deleted_at" is null',
      [projectId, organizationId],
      'all',
      em.getTransactionContext(),
    );
  if (rows.length === 0) return undefined;
  return rows[0].locales?.length ? rows[0].locales : DEFAULT_LOCALES;
}

/** What the directory keeps of a project. */
interface ProjectRecord {
  locales: readonly ProjectLocale[];
}

/** One per ORM: the resolvers' guards and the upload and CDN handlers share its cache and its invalidation. */
const directories = new WeakMap<MikroORM, SqlProjectDirectory>();

export function sqlProjectDirectory(orm: MikroORM): SqlProjectDirectory {
  let directory = directories.get(orm);
  if (!directory) directories.set(orm, (directory = new SqlProjectDirectory(orm)));
  return directory;
}
