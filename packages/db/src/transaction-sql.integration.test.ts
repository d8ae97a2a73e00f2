// `sql`, the plain statements of the write path, on PostgreSQL and on the embedded database: bound values read back as
// the ORM's own inlined statement reads them, prepared texts are kept per connection only where a connection has a
// session of its own, and a transaction that has ended takes no statement.
import type { EntityManager } from '@mikro-orm/postgresql';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, type TestDatabase, type TestDatabaseKind } from './testing';
import { sql } from './transaction-sql';

const runs = { seed: Number(process.env.FC_SEED ?? 20261129), numRuns: Number(process.env.FC_RUNS ?? 100) };

/**
 * Values a statement binds: text of any kind (quotes, backslashes, question marks, emoji), integers, booleans, null.
 * (A fraction is no test: inlined it is a numeric literal, bound it is the text JavaScript prints, and `1e-7` reads
 * back differently as text while a numeric column takes both alike.)
 */
const value = fc.oneof(
  fc.string({ unit: 'grapheme' }),
  fc.constantFrom(`it's`, 'a\\b', '?', '$1', "'); drop table x; --", ''),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
);

const PREPARED = 'select ? as "a", ?::text as "b"';
/** `openTestDatabase`'s pool. */
const CONNECTIONS = 5;

describe.each<TestDatabaseKind>(['postgres', 'pglite'])('sql on %s', (kind) => {
  let db: TestDatabase;
  let em: EntityManager;
  beforeAll(async () => {
    db = await openTestDatabase(kind, []);
    em = db.orm.em.fork() as EntityManager;
  }, 60_000);
  afterAll(() => db?.destroy());

  /** `work` in as many transactions at once as the pool has connections, so each connection runs it. */
  const onEveryConnection = <T>(work: (tx: EntityManager) => Promise<T>) =>
    Promise.allSettled(Array.from({ length: CONNECTIONS }, () => em.fork().transactional(work)));

  it('reads back every bound value as the ORM reads it inlined into the text', async () => {
    await fc.assert(
      fc.asyncProperty(value, value, async (a, b) => {
        // Text of the ORM's own: `?` becomes the value, quoted and escaped.
        const statement =
          'select cast(? as text) as "a", cast(? as text) as "b", \'{"k":1}\'::jsonb \\? \'k\' as "has"';
        const inlined = await em.getConnection().execute(statement, [a, b]);
        await em.transactional(async (tx) => {
          expect(await sql(tx, statement, [a, b])).toEqual(inlined);
        });
        expect(await sql(em, statement, [a, b])).toEqual(inlined);
      }),
      runs,
    );
  });

  it("binds a date as the instant it names, whatever the machine's time zone", async () => {
    // The driver would send a date in local time with its offset, which a column without a zone reads as local time.
    const zone = process.env.TZ;
    process.env.TZ = 'America/New_York';
    try {
      const at = new Date('2026-11-29T10:11:12.345Z');
      const [row] = await sql<{ at: string }>(em, 'select ?::timestamp::text as "at"', [at]);
      expect(row!.at).toBe('2026-11-29 10:11:12.345');
    } finally {
      process.env.TZ = zone;
    }
  });

  it('writes every value into a typed column as the ORM writes it inlined', async () => {
    // Bound values take the type of the column they go into, where inlined literals are read as that type.
    await em.getConnection().execute(`create table if not exists "bind_check" ("k" text primary key,
      "i" int, "t" text, "b" boolean, "v" varchar(64), "j" jsonb)`);
    const row = fc.record({
      i: fc.option(fc.integer()),
      t: fc.option(fc.string({ unit: 'grapheme' })),
      b: fc.option(fc.boolean()),
      v: fc.option(fc.string({ maxLength: 64 })),
      j: fc.option(fc.json()),
    });
    await fc.assert(
      fc.asyncProperty(row, async ({ i, t, b, v, j }) => {
        const insert = 'insert into "bind_check" values (?, ?, ?, ?, ?, ?)';
        await em.getConnection().execute(insert, ['inlined', i, t, b, v, j]);
        await em.transactional((tx) => sql(tx, insert, ['bound', i, t, b, v, j]));
        const columns = 'select "i", "t", "b", "v", "j" from "bind_check" where "k" = ?';
        const [inlined] = await sql(em, columns, ['inlined']);
        const [bound] = await sql(em, columns, ['bound']);
        await sql(em, 'delete from "bind_check"', []);
        expect(bound).toEqual(inlined);
      }),
      runs,
    );
  });

  it('refuses a list, which knex spread into placeholders and the driver would send as an array', async () => {
    await expect(sql(em, 'select 1 where 1 in (?)', [[1, 2]])).rejects.toThrow(/placeholder of its own/);
  });

  it('answers a prepared text on every connection at once, prepared once per connection on PostgreSQL only', async () => {
    // Every pooled connection at once, each running the prepared text twice. PGlite runs one PostgreSQL session for
    // all its connections, so a name there would not belong to the connection that prepared it: none is named.
    const named = await onEveryConnection(async (tx) => {
      for (const n of [1, 2]) expect(await sql(tx, PREPARED, [n, 'x'], true)).toEqual([{ a: String(n), b: 'x' }]);
      const rows = await sql<{ name: string }>(tx, `select "name" from pg_prepared_statements where "statement" = ?`, [
        PREPARED.replace('?', '$1').replace('?', '$2'),
      ]);
      return rows.length;
    });
    expect(named.map((r) => r.status)).toEqual(Array(CONNECTIONS).fill('fulfilled'));
    if (kind === 'postgres') expect(named).toEqual(Array(CONNECTIONS).fill({ status: 'fulfilled', value: 1 }));
  });

  it('sends more values than the protocol can bind in the text, as the ORM does', async () => {
    const ids = Array.from({ length: 70_000 }, (_, n) => n);
    const statement = `select count(*)::int as "n" from generate_series(1, 100000) g where g in (${ids.map(() => '?').join(', ')})`;
    expect(await em.transactional((tx) => sql(tx, statement, ids))).toEqual([{ n: 69_999 }]);
  });

  if (kind === 'postgres')
    it('closes a connection whose prepared statement a migration made unusable, and the next ones prepare it anew', async () => {
      await em.getConnection().execute('create table "altered" ("id" int primary key, "n" int)');
      await em.getConnection().execute('insert into "altered" values (1, 7)');
      const read = 'select "id", "n" from "altered" where "id" = ?';
      // Every pooled connection at once, so each holds the prepared text.
      const round = () =>
        onEveryConnection(async (tx) => {
          const rows = await sql<{ n: unknown }>(tx, read, [1], true);
          await sql(tx, 'select pg_sleep(0.05)', []);
          return rows[0]!.n;
        });
      expect((await round()).map((r) => r.status)).toEqual(Array(CONNECTIONS).fill('fulfilled'));
      // Its result columns change type under the running process, as a rolling deploy's migration would.
      await em.getConnection().execute('alter table "altered" alter column "n" type bigint');
      const failed = await round();
      expect(failed.some((r) => r.status === 'rejected' && (r.reason as { code?: string }).code === '0A000')).toBe(
        true,
      );
      const healed = await round();
      expect(healed).toEqual(Array(CONNECTIONS).fill({ status: 'fulfilled', value: '7' }));
    });

  it('refuses a statement on a transaction that has ended', async () => {
    let ended: EntityManager | undefined;
    await em.transactional(async (tx) => {
      ended = tx as EntityManager;
    });
    await expect(sql(ended!, 'select 1', [])).rejects.toThrow(/already ended/);
  });

  it('keeps the database error and its SQLSTATE', async () => {
    await expect(sql(em, 'select 1 / ?::int', [0])).rejects.toMatchObject({ code: '22012' });
  });
});
