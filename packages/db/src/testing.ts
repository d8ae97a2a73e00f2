// Test support: a fresh database per test file, on the local PostgreSQL server or on embedded PGlite.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { startEmbeddedPostgres } from './embedded';
import { openDatabase, type Database, type DatabaseModule } from './orm';

export type TestDatabaseKind = 'postgres' | 'pglite';

/** Admin connections tried in order: TEST_DATABASE_URL, then the CI machine's `postgres` and `root` users. */
function adminUrls(): string[] {
  const fromEnv = process.env.TEST_DATABASE_URL;
  return [
    ...(fromEnv ? [fromEnv] : []),
    'postgres://postgres@127.0.0.1:5432/test',
    'postgres://root@127.0.0.1:5432/test',
  ];
}

async function withAdminClient<T>(
  work: (query: (sql: string) => Promise<unknown>, url: string) => Promise<T>,
): Promise<T> {
  const { Client } = await import('pg');
  let lastError: unknown;
  for (const url of adminUrls()) {
    const client = new Client({ connectionString: url });
    try {
      await client.connect();
    } catch (err) {
      lastError = err;
      continue;
    }
    try {
      return await work((sql) => client.query(sql), url);
    } finally {
      await client.end();
    }
  }
  throw lastError;
}

/** Creates an empty database on the local server and returns its URL and a function that drops it. */
export async function createPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `cp_test_${randomBytes(6).toString('hex')}`;
  const adminUrl = await withAdminClient(async (query, url) => {
    await query(`create database "${name}"`);
    return url;
  });
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () =>
      withAdminClient((query) => query(`drop database if exists "${name}" with (force)`)).then(() => undefined),
  };
}

export interface TestDatabase extends Database {
  kind: TestDatabaseKind;
  /** Closes the ORM and removes the database (or the PGlite data directory). */
  destroy(): Promise<void>;
}

export async function openTestDatabase(kind: TestDatabaseKind, modules: DatabaseModule[]): Promise<TestDatabase> {
  if (kind === 'postgres') {
    const pg = await createPostgresDatabase();
    const db = await openDatabase({
      config: { database: { url: pg.url, poolMax: 5, dataDir: '.', probe: { intervalMs: 1000, timeoutMs: 2000 } } },
      modules,
    });
    return { ...db, kind, destroy: async () => (await db.close(), await pg.drop()) };
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'cp-pglite-'));
  const db = await openDatabase({ config: { database: { poolMax: 5, dataDir } }, modules });
  return { ...db, kind, destroy: async () => (await db.close(), rmSync(dataDir, { recursive: true, force: true })) };
}

/** Catalog queries whose rows make up a database's schema, as `pg_dump --schema-only` would print it. */
const SCHEMA_QUERIES = {
  relations: `select c.relname, c.relkind, c.relpersistence, c.reloptions::text as options, c.relacl::text as acl
    from pg_class c where c.relnamespace = 'public'::regnamespace order by 1`,
  columns: `select table_name, column_name, ordinal_position, data_type, udt_name, is_nullable, column_default,
      is_identity, generation_expression
    from information_schema.columns where table_schema = 'public' order by 1, 3`,
  indexes: `select indexname, indexdef from pg_indexes where schemaname = 'public' order by 1`,
  constraints: `select conrelid::regclass::text as relation, conname, pg_get_constraintdef(oid) as definition
    from pg_constraint where connamespace = 'public'::regnamespace order by 1, 2`,
  triggers: `select tgrelid::regclass::text as relation, tgname, tgenabled, pg_get_triggerdef(oid) as definition
    from pg_trigger where not tgisinternal order by 1, 2`,
  functions: `select proname, pg_get_functiondef(oid) as definition
    from pg_proc where pronamespace = 'public'::regnamespace and prokind in ('f', 'p') order by 1, 2`,
  views: `select viewname, definition from pg_views where schemaname = 'public' order by 1`,
  extensions: `select extname, extversion from pg_extension order by 1`,
  migrations: `select name from mikro_orm_migrations order by name`,
};

/**
 * The schema of the embedded database under `dataDir`, read as it is on disk (nothing is migrated first): relations,
 * columns, indexes, constraints, triggers, functions, views, extensions and the applied migrations.
 */
export async function embeddedSchema(dataDir: string): Promise<Record<keyof typeof SCHEMA_QUERIES, unknown[]>> {
  const { Client } = await import('pg');
  const embedded = await startEmbeddedPostgres(dataDir, 1);
  const client = new Client({ host: embedded.host, port: embedded.port, user: 'postgres', database: 'postgres' });
  try {
    await client.connect();
    const schema = {} as Record<keyof typeof SCHEMA_QUERIES, unknown[]>;
    for (const [part, sql] of Object.entries(SCHEMA_QUERIES)) {
      schema[part as keyof typeof SCHEMA_QUERIES] = (await client.query(sql)).rows;
    }
    return schema;
  } finally {
    await client.end();
    await embedded.stop();
  }
}
