// Embedded PostgreSQL (PGlite) for `npm start` without DATABASE_URL, served over TCP so MikroORM's pg driver can use it.
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

export interface EmbeddedPostgres {
  url: string;
  stop(): Promise<void>;
}

/** Opens (or creates) the database kept under `dataDir/pgdata`; data survive restarts. */
export async function startEmbeddedPostgres(dataDir: string, maxConnections: number): Promise<EmbeddedPostgres> {
  const dir = resolve(dataDir, 'pgdata');
  mkdirSync(dir, { recursive: true });
  const { PGlite } = await import('@electric-sql/pglite');
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
  const db = await PGlite.create(join(dir));
  // The socket server queues queries and keeps a transaction on its own connection until it ends.
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections });
  await server.start();
  const url = `postgres://postgres@${server.getServerConn()}/postgres`;
  return {
    url,
    async stop() {
      await server.stop();
      await db.close();
    },
  };
}
