// One connection whose server process stops (SIGSTOP on its backend): its client-side read timeout closes it, the
// transaction's next statement fails at once instead of queueing behind the stuck one, and the pool replaces it; a
// transaction whose BEGIN (or a nested one's SAVEPOINT) fails so fails with that error (503), not with knex's
// "Transaction query already complete".
import { unavailableErrorOf } from '@cp/errors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from './orm';
import { createPostgresDatabase } from './testing';

// Signalling the server's backend needs the rights of its owner (root on the CI machine).
describe.skipIf(process.getuid?.() !== 0)('a client-side statement timeout on a pooled connection', () => {
  let database: { url: string; drop(): Promise<void> };
  let db: Database;

  beforeAll(async () => {
    database = await createPostgresDatabase();
    // statement_timeout 500 ms; the client's read timeout fires at 1000 ms (a stopped backend cancels nothing).
    const config = {
      database: {
        url: database.url,
        poolMax: 2,
        dataDir: '.',
        queryTimeoutMs: 500,
        probe: { intervalMs: 1000, timeoutMs: 2000 },
      },
    };
    db = await openDatabase({ config, modules: [] });
  });
  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  it('closes the connection it fired on: the next statement fails at once, and the pool makes a new connection', async () => {
    const knex = db.orm.em.getConnection().getKnex();
    let pid = 0;
    const seen: { timedOut?: string; next?: string; nextMs?: number } = {};
    const failure = (err: Error) => err.message;
    const committed = await knex
      .transaction(async (trx) => {
        pid = (await trx.raw('select pg_backend_pid() as pid')).rows[0].pid;
        process.kill(pid, 'SIGSTOP');
        seen.timedOut = await trx.raw('select 1').then(() => undefined, failure);
        const at = Date.now();
        seen.next = await trx.raw('select 2').then(() => undefined, failure);
        seen.nextMs = Date.now() - at;
      })
      .then(() => true, failure)
      .finally(() => pid && process.kill(pid, 'SIGCONT'));
    expect(seen.timedOut).toMatch(/Query read timeout/);
    expect(seen.next).toMatch(/Connection terminated|not queryable/);
    expect(seen.nextMs).toBeLessThan(200);
    // Its COMMIT fails too (an unknown outcome is never a success).
    expect(committed).toMatch(/Connection terminated|not queryable/);
    // The other backends answer: the database is alive, and the pool serves on a new connection.
    expect(await db.ping()).toBe(true);
    const rows = await Promise.all([1, 2, 3].map(() => knex.raw('select pg_backend_pid() as pid')));
    expect(rows.map((r) => r.rows[0].pid)).not.toContain(pid);
  });

  it('fails a transaction whose BEGIN got no answer with that failure (503), never with a statement on a dead transaction', async () => {
    const single = await openDatabase({
      config: {
        database: {
          url: database.url,
          poolMax: 1,
          dataDir: '.',
          queryTimeoutMs: 500,
          probe: { intervalMs: 1000, timeoutMs: 2000 },
        },
      },
      modules: [],
    });
    try {
      const knex = single.orm.em.getConnection().getKnex();
      // The pool's one connection: the transaction's BEGIN goes to the stopped backend.
      const pid = (await knex.raw('select pg_backend_pid() as pid')).rows[0].pid;
      process.kill(pid, 'SIGSTOP');
      const err = await single.orm.em
        .fork()
        .transactional((em) => em.getConnection().execute('select 1', [], 'all', em.getTransactionContext()))
        .catch((e: Error) => e)
        .finally(() => process.kill(pid, 'SIGCONT'));
      expect((err as Error).message).toMatch(/^BEGIN; - /);
      expect(unavailableErrorOf(err)).toBeDefined();
    } finally {
      await single.close();
    }
  });

  it('fails a nested transaction whose SAVEPOINT got no answer with that failure (503), never running its body', async () => {
    let pid = 0;
    let ranInner = false;
    const err = await db.orm.em
      .fork()
      .transactional(async (outer) => {
        pid = (
          await outer
            .getConnection()
            .execute('select pg_backend_pid() as pid', [], 'all', outer.getTransactionContext())
        )[0].pid;
        process.kill(pid, 'SIGSTOP');
        // MikroORM runs a nested transaction as a SAVEPOINT on the outer one's connection.
        await outer.transactional(async (inner) => {
          ranInner = true;
          await inner.getConnection().execute('select 1', [], 'all', inner.getTransactionContext());
        });
      })
      .catch((e: Error) => e)
      .finally(() => pid && process.kill(pid, 'SIGCONT'));
    expect(ranInner).toBe(false);
    expect((err as Error).message).toMatch(/^SAVEPOINT /);
    expect(unavailableErrorOf(err)).toBeDefined();
  });
});
