// Embedded PostgreSQL (PGlite) for `npm start` without DATABASE_URL, served on a private Unix socket for MikroORM's pg driver.
import { chmodSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { join, resolve } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { unpackInitialData } from './initial-data';

export interface EmbeddedPostgres {
  /** Where the pg driver connects: a socket directory (Unix socket) or `127.0.0.1`, and the port. */
  host: string;
  port: number;
  stop(): Promise<void>;
}

/** node-postgres connects to `<host>/.s.PGSQL.<port>` when `host` is a directory. */
const SOCKET_PORT = 5432;
/** sun_path holds 108 bytes on Linux; a longer DATA_DIR falls back to loopback TCP. */
const MAX_SOCKET_PATH = 100;

/** Memory settings of the embedded server: enough for a single-process CMS, a fraction of PostgreSQL's defaults. */
const EMBEDDED_SETTINGS = [
  'shared_buffers=16MB',
  'work_mem=2MB',
  'maintenance_work_mem=16MB',
  'temp_buffers=2MB',
  'wal_buffers=1MB',
];

function answers(socketPath: string): Promise<boolean> {
  return new Promise((done) => {
    const probe = connect(socketPath);
    probe.once('connect', () => (probe.destroy(), done(true)));
    probe.once('error', () => done(false));
  });
}

/** The lock file (data-lock.ts) a process holds while it has the embedded database open. */
export function embeddedLockPath(dataDir: string): string {
  return resolve(dataDir, 'pgdata.lock');
}

/** True when `dataDir` holds no database yet. */
export function embeddedIsNew(dataDir: string): boolean {
  return !existsSync(resolve(dataDir, 'pgdata', 'PG_VERSION'));
}

/**
 * Opens (or creates) the database kept under `dataDir/pgdata`; data survive restarts. The caller holds
 * `embeddedLockPath`. A new one starts from `initialData` (a tarball of initial-data.ts) when given.
 */
export async function startEmbeddedPostgres(
  dataDir: string,
  maxConnections: number,
  initialData?: string,
): Promise<EmbeddedPostgres> {
  const dir = resolve(dataDir, 'pgdata');
  if (initialData && embeddedIsNew(dataDir)) await unpackInitialData(initialData, dir);
  mkdirSync(dir, { recursive: true });
  // PGlite is PostgreSQL compiled to WebAssembly. V8 tiers hot functions up with TurboFan, whose code and compile
  // memory (≈ 80 MB here, never given back) dominated the idle RSS of `npm start`; the baseline compiler alone keeps
  // the embedded store fast enough for one process's CMS. Set before the module is compiled.
  // Measured with 1,500 queries on this machine: no slower within the noise, 40–60 MB less RSS.
  setFlagsFromString('--liftoff-only');
  const { PGlite } = await import('@electric-sql/pglite');
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
  // PostgreSQL's defaults (shared_buffers 128 MB) live inside PGlite's WebAssembly heap, which never shrinks: the
  // embedded database is one process's small store, so it gets small buffers (idle RSS).
  // pg_trgm backs the trigram index of the `like` filter (content subgraph migration); PostgreSQL ships it in contrib.
  const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
  const db = await PGlite.create(join(dir), {
    startParams: [...PGlite.defaultStartParams, ...EMBEDDED_SETTINGS.flatMap((setting) => ['-c', setting])],
    extensions: { pg_trgm },
  });
  // The socket server has no authentication: on loopback TCP any local user could read the database (password hashes
  // included). A Unix socket inside DATA_DIR with mode 0600 admits only this user. The server queues queries
  // and keeps a transaction on its own connection until it ends.
  const socketPath = join(dir, `.s.PGSQL.${SOCKET_PORT}`);
  const onSocket = socketPath.length <= MAX_SOCKET_PATH;
  if (onSocket && existsSync(socketPath)) {
    // The caller holds the data lock, so a socket here was left by a killed process. Should one still answer (a
    // process that took no lock), it is live: deleting it would hand this directory to two processes at once.
    if (await answers(socketPath)) {
      await db.close();
      throw new Error(`A process is serving the embedded database on ${socketPath}; it allows one process at a time.`);
    }
    rmSync(socketPath, { force: true });
  }
  const server = onSocket
    ? new PGLiteSocketServer({ db, path: socketPath, maxConnections })
    : new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections });
  await server.start();
  if (onSocket) chmodSync(socketPath, 0o600);
  const [host, port] = onSocket
    ? [dir, SOCKET_PORT]
    : [server.getServerConn().split(':')[0], Number(server.getServerConn().split(':')[1])];
  return {
    host,
    port,
    async stop() {
      await server.stop();
      await db.close();
    },
  };
}
