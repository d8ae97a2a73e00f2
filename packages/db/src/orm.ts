// Opens the database (real PostgreSQL or embedded), runs the committed migrations, and exposes the ORM.
import type { Config, Logger } from '@cp/config';
import type { Exhaustion } from '@cp/errors';
import type { EntityClass, MigrationObject } from '@mikro-orm/core';
import { Migrator } from '@mikro-orm/migrations';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { MikroORM, PostgreSqlDriver } from '@mikro-orm/postgresql';
import { RevisionCheck } from './revision';
import { ColumnLengthCheck } from './column-lengths';
import { acquireDataLock, type DataLock } from './data-lock';
import { embeddedIsNew, embeddedLockPath, startEmbeddedPostgres } from './embedded';
import { EventRecord } from './events/event.entity';
import { checkInitialData, packInitialData } from './initial-data';
import { ExhaustionWatch } from './exhaustion-watch';
import { DatabaseLiveness } from './liveness';
import { coreMigrations } from './migrations';
import { PoolGuard } from './pool-guard';
import { configureStatements } from './transaction-sql';

/** What a subgraph contributes to the database: its entities and its migrations, in order. */
export interface DatabaseModule {
  name: string;
  entities: EntityClass<unknown>[];
  migrations: MigrationObject[];
}

export interface Database {
  orm: MikroORM;
  embedded: boolean;
  /**
   * True when the database answers within the timeout (health check). With a liveness probe (PostgreSQL): false at
   * once while it finds the database not answering, else the probe's own answer (bounded by its timeout, and never
   * waiting for a pooled connection: a saturated pool is not an outage).
   */
  ping(timeoutMs?: number): Promise<boolean>;
  /**
   * What the database ran out of (`disk`, or `resources`: memory, connections) while it refuses statements for it
   * (exhaustion-watch.ts); undefined otherwise. Reads still work then: `/ready` says `degraded` rather than 503.
   */
  exhausted(): Exhaustion | undefined;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /**
   * Without `probe`, no liveness probe runs (the embedded database never has one). `preparedStatements` defaults to
   * on; the embedded database never has them.
   */
  config: {
    database: Omit<Config['database'], 'probe' | 'preparedStatements'> &
      Partial<Pick<Config['database'], 'probe' | 'preparedStatements'>>;
  };
  modules: DatabaseModule[];
  logger?: Logger;
  /** The embedded database's initial data (`buildInitialData`): a new DATA_DIR starts from it. */
  initialData?: string;
}

// Any constant works: it only serialises concurrent migration runs of several replicas on one server.
const MIGRATION_LOCK = 7_240_113;

export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  const url = options.config.database.url;
  // One opener for the embedded data, held until close() (across the restart below): a second process would serve
  // the same files from its own memory, and the two would overwrite each other's confirmed writes.
  const lock = url ? undefined : lockDataDir(options.config.database.dataDir);
  try {
    return await open(options, lock);
  } catch (err) {
    lock?.release();
    throw err;
  }
}

function lockDataDir(dataDir: string): DataLock {
  mkdirSync(dataDir, { recursive: true });
  return acquireDataLock(embeddedLockPath(dataDir), resolve(dataDir));
}

async function open(options: OpenDatabaseOptions, lock: DataLock | undefined): Promise<Database> {
  const { config, modules, logger, initialData } = options;
  const { url, dataDir } = config.database;
  const initial = url ? undefined : initialDataFor(dataDir, modules, initialData, logger);
  let embedded = url ? undefined : await startEmbeddedPostgres(dataDir, 8, initial);
  if (embedded) logger?.info({ dataDir, fromInitialData: Boolean(initial) }, 'using embedded PostgreSQL (PGlite)');
  if (url) {
    // Migrations run on a connection of their own, without the query timeout: building an index on a large table may
    // take minutes, which no request's query may.
    const migrating = await connect(modules, { url, poolMax: 2 }, logger);
    try {
      await migrate(migrating, true);
    } finally {
      await migrating.close(true);
    }
  }
  const { poolMax, queryTimeoutMs } = config.database;
  // PostgreSQL only: PGlite runs in this process, so it cannot freeze while the process runs.
  const probe = url && config.database.probe;
  const liveness = probe ? new DatabaseLiveness({ url, ...probe, logger }) : undefined;
  const guard = url ? new PoolGuard(liveness) : undefined;
  const exhaustion = new ExhaustionWatch(logger);
  let orm = await connect(
    modules,
    embedded
      ? { host: embedded.host, port: embedded.port, exhaustion }
      : { url: url!, poolMax, queryTimeoutMs, guard, exhaustion },
    logger,
  );
  guard?.attach(orm.em.getConnection().getKnex().client);
  // PGlite runs one PostgreSQL session for all its connections: a prepared statement would not be its connection's own.
  configureStatements(orm.em, {
    ownSessions: !embedded,
    prepare: !embedded && config.database.preparedStatements !== false,
  });
  liveness?.start();
  const applied = embedded ? await migrate(orm, false) : 0;
  if (embedded && applied > 0) {
    // PGlite's WebAssembly heap never shrinks, and creating the cluster and running every migration grows it by
    // several hundred MB (a first `npm start` idled at 720 MB, later ones at 245 MB). A fresh instance on the same
    // files starts small: a first start pays about 0.3 s for it.
    await orm.close(true);
    await embedded.stop();
    embedded = await startEmbeddedPostgres(dataDir, 8);
    orm = await connect(modules, { host: embedded.host, port: embedded.port, exhaustion });
  }
  return {
    orm,
    embedded: Boolean(embedded),
    async ping(timeoutMs = 2000) {
      if (liveness) return liveness.up && liveness.check();
      const timeout = new Promise<boolean>((r) => setTimeout(() => r(false), timeoutMs).unref());
      const query = orm.em
        .getConnection()
        .execute('select 1')
        .then(() => true)
        .catch(() => false);
      return Promise.race([query, timeout]);
    },
    exhausted: () => exhaustion.state,
    async close() {
      try {
        await liveness?.stop();
        await orm.close(true);
        await embedded?.stop();
      } finally {
        lock?.release();
      }
    },
  };
}

/** The initial data for a new embedded DATA_DIR, when it fits these modules' migrations. */
function initialDataFor(dataDir: string, modules: DatabaseModule[], file?: string, logger?: Logger) {
  if (!file || !embeddedIsNew(dataDir)) return undefined;
  const { reason } = checkInitialData(file, allMigrations(modules));
  // Still correct, only slower: the database is created and every migration runs.
  if (reason) logger?.warn({ reason }, 'creating the embedded database without initial data');
  return reason ? undefined : file;
}

/**
 * Builds the embedded database's initial data at `file` (a build step): a new database with every migration of
 * `modules` applied and nothing else (the first-start bootstrap runs later), stopped cleanly, then packed.
 */
export async function buildInitialData(modules: DatabaseModule[], file: string): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cp-initial-data-'));
  try {
    const embedded = await startEmbeddedPostgres(dataDir, 2);
    const orm = await connect(modules, { host: embedded.host, port: embedded.port });
    await migrate(orm, false);
    await orm.close(true);
    await embedded.stop();
    await packInitialData(join(dataDir, 'pgdata'), file, allMigrations(modules));
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const allMigrations = (modules: DatabaseModule[]) => [...coreMigrations, ...modules.flatMap((m) => m.migrations)];

type Target = (
  { url: string; poolMax: number; queryTimeoutMs?: number; guard?: PoolGuard } | { host: string; port: number }
) & { exhaustion?: ExhaustionWatch };

/** knex's pool hook: the pool guard's, then the exhaustion watch's, on every new connection. */
function afterCreate(target: Target) {
  const guard = 'url' in target ? target.guard : undefined;
  const exhaustion = target.exhaustion;
  if (!guard && !exhaustion) return {};
  type Connection = Parameters<PoolGuard['afterCreate']>[0];
  type Done = (err: Error | null, connection: Connection) => void;
  const watched = (err: Error | null, connection: Connection, done: Done) =>
    err || !exhaustion ? done(err, connection) : exhaustion.afterCreate(connection, done);
  return {
    afterCreate: (connection: Connection, done: Done) =>
      guard ? guard.afterCreate(connection, (err, c) => watched(err, c, done)) : watched(null, connection, done),
  };
}

function connect(modules: DatabaseModule[], target: Target, logger?: Logger): Promise<MikroORM> {
  return MikroORM.init({
    driver: PostgreSqlDriver,
    ...('url' in target
      ? { clientUrl: target.url }
      : { host: target.host, port: target.port, user: 'postgres', dbName: 'postgres' }),
    entities: [EventRecord, ...modules.flatMap((m) => m.entities)],
    extensions: [Migrator],
    // `If-Match` / `expectedRevision` compared when the change is flushed, inside its transaction; text checked
    // against its column's length (422 naming the member rather than the database's refusal).
    subscribers: [new RevisionCheck(), new ColumnLengthCheck()],
    migrations: {
      migrationsList: allMigrations(modules),
      transactional: true,
      allOrNothing: true,
      snapshot: false,
      silent: true,
    },
    // A database that does not answer fails requests within seconds (503 UNAVAILABLE at the edge) instead of holding
    // them for knex's default 60 s: connecting gives up after 5 s, waiting for a pooled connection after 10 s.
    pool: {
      min: 0,
      max: 'url' in target ? target.poolMax : 6,
      acquireTimeoutMillis: 10_000,
      ...afterCreate(target),
    },
    driverOptions: {
      connection: {
        connectionTimeoutMillis: 5000,
        // A statement running past `queryTimeoutMs` is cancelled by the server (its transaction rolls back: a 503 whose
        // change did not happen); one the server never answers (a stopped process, a silent network) fails on the
        // client a little later. Keepalive finds dead peers.
        ...('url' in target && target.queryTimeoutMs && deadlines(target.queryTimeoutMs)),
        keepAlive: true,
        keepAliveInitialDelayMillis: 10_000,
      },
      // knex prints its warnings with console.warn ("Connection Error: Connection ended unexpectedly" for each pooled
      // connection a database outage broke): into the service's JSON log instead (docs/operating/README.md, Faults).
      ...(logger && { log: { warn: (message: unknown) => logger.warn({ reason: String(message) }, 'knex warning') } }),
    },
    allowGlobalContext: false,
    forceUtcTimezone: true,
    discovery: { warnWhenNoEntities: false },
    debug: false,
  });
}

/** Runs the pending migrations; how many ran. */
async function migrate(orm: MikroORM, lock: boolean): Promise<number> {
  const migrator = orm.getMigrator();
  if (!lock) return (await migrator.up()).length;
  // Replicas starting together on one server: the first migrates, the others wait, then find nothing to do.
  const knex = orm.em.getConnection().getKnex();
  const client = (await knex.client.acquireConnection()) as { query(sql: string): Promise<unknown> };
  try {
    await client.query(`select pg_advisory_lock(${MIGRATION_LOCK})`);
    return (await migrator.up()).length;
  } finally {
    await client.query(`select pg_advisory_unlock(${MIGRATION_LOCK})`).catch(() => undefined);
    await knex.client.releaseConnection(client);
  }
}

/**
 * The server's `statement_timeout` first: it cancels a statement that runs too long and rolls its transaction back, so
 * the outcome is known (nothing changed). pg's client-side `query_timeout` is the backstop for a server that answers
 * nothing at all on one connection, whose outcome (a COMMIT sent, no answer) cannot be known: it fires only later, and
 * the connection it fired on is closed (pool-guard.ts). A server that answers nothing at all is usually found sooner
 * by the liveness probe (liveness.ts).
 */
function deadlines(queryTimeoutMs: number) {
  return { statement_timeout: queryTimeoutMs, query_timeout: queryTimeoutMs + Math.min(queryTimeoutMs, 5000) };
}
