// Test support: a fresh database per test file, on the local PostgreSQL server or on embedded PGlite.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
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

async function withAdminClient<T>(work: (query: (sql: string) => Promise<unknown>, url: string) => Promise<T>): Promise<T> {
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
    drop: () => withAdminClient((query) => query(`drop database if exists "${name}" with (force)`)).then(() => undefined),
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
    const db = await openDatabase({ config: { database: { url: pg.url, poolMax: 5, dataDir: '.' } }, modules });
    return { ...db, kind, destroy: async () => (await db.close(), await pg.drop()) };
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'cp-pglite-'));
  const db = await openDatabase({ config: { database: { poolMax: 5, dataDir } }, modules });
  return { ...db, kind, destroy: async () => (await db.close(), rmSync(dataDir, { recursive: true, force: true })) };
}
