// Opens the database (real PostgreSQL or embedded), runs the committed migrations, and exposes the ORM.
import type { Config, Logger } from '@cp/config';
import type { EntityClass, MigrationObject } from '@mikro-orm/core';
import { Migrator } from '@mikro-orm/migrations';
import { MikroORM, PostgreSqlDriver } from '@mikro-orm/postgresql';
import { RevisionCheck } from '@cp/graphql';
import { startEmbeddedPostgres, type EmbeddedPostgres } from './embedded';
import { EventRecord } from './events/event.entity';
import { coreMigrations } from './migrations';

/** What a subgraph contributes to the database: its entities and its migrations, in order. */
export interface DatabaseModule {
  name: string;
  entities: EntityClass<unknown>[];
  migrations: MigrationObject[];
}

export interface Database {
  orm: MikroORM;
  embedded: boolean;
  /** True when the database answers within the timeout (health check, D10). */
  ping(timeoutMs?: number): Promise<boolean>;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  config: Pick<Config, 'database'>;
  modules: DatabaseModule[];
  logger?: Logger;
}

// Any constant works: it only serialises concurrent migration runs of several replicas on one server.
const MIGRATION_LOCK = 7_240_113;

export async function openDatabase({ config, modules, logger }: OpenDatabaseOptions): Promise<Database> {
  let embedded: EmbeddedPostgres | undefined;
  const url = config.database.url;
  if (!url) {
    embedded = await startEmbeddedPostgres(config.database.dataDir, 8);
    logger?.info({ dataDir: config.database.dataDir }, 'using embedded PostgreSQL (PGlite)');
  }
  const orm = await MikroORM.init({
    driver: PostgreSqlDriver,
    ...(embedded ? { host: embedded.host, port: embedded.port, user: 'postgres', dbName: 'postgres' } : { clientUrl: url }),
    entities: [EventRecord, ...modules.flatMap((m) => m.entities)],
    extensions: [Migrator],
    // D16: `If-Match` / `expectedRevision` compared when the change is flushed, inside its transaction.
    subscribers: [new RevisionCheck()],
    migrations: {
      migrationsList: [...coreMigrations, ...modules.flatMap((m) => m.migrations)],
      transactional: true,
      allOrNothing: true,
      snapshot: false,
      silent: true,
    },
    pool: { min: 0, max: embedded ? 6 : config.database.poolMax },
    allowGlobalContext: false,
    forceUtcTimezone: true,
    discovery: { warnWhenNoEntities: false },
    debug: false,
  });
  await migrate(orm, !embedded);
  return {
    orm,
    embedded: Boolean(embedded),
    async ping(timeoutMs = 2000) {
      const timeout = new Promise<boolean>((r) => setTimeout(() => r(false), timeoutMs).unref());
      const query = orm.em
        .getConnection()
        .execute('select 1')
        .then(() => true)
        .catch(() => false);
      return Promise.race([query, timeout]);
    },
    async close() {
      await orm.close(true);
      await embedded?.stop();
    },
  };
}

async function migrate(orm: MikroORM, lock: boolean): Promise<void> {
  const migrator = orm.getMigrator();
  if (!lock) {
    await migrator.up();
    return;
  }
  // Replicas starting together on one server: the first migrates, the others wait, then find nothing to do.
  const knex = orm.em.getConnection().getKnex();
  const client = (await knex.client.acquireConnection()) as { query(sql: string): Promise<unknown> };
  try {
    await client.query(`select pg_advisory_lock(${MIGRATION_LOCK})`);
    await migrator.up();
  } finally {
    await client.query(`select pg_advisory_unlock(${MIGRATION_LOCK})`).catch(() => undefined);
    await knex.client.releaseConnection(client);
  }
}
