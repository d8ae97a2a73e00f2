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

describe.each<TestDatabaseKind>(['postgres', 'pglite'])('sql on %s', (kind) => {
  let db: TestDatabase;
  let em: EntityManager;
  beforeAll(async () => {
    db = await openTestDatabase(kind, []);
    em = db.orm.em.fork() as EntityManager;
  }, 60_000);
  afterAll(() => db?.destroy());

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

  it('binds a date as the instant it names', async () => {
    const at = new Date('2026-11-29T10:11:12.345Z');
    // The driver reads a time as text (the ORM's type parser), which the entity's mapping turns into a Date.
    const [row] = await sql<{ at: string }>(em, 'select ?::timestamptz as "at"', [at]);
    expect(new Date(row!.at).toISOString()).toBe(at.toISOString());
  });

  it('refuses a list, which knex spread into placeholders and the driver would send as an array', async () => {
    await expect(sql(em, 'select 1 where 1 in (?)', [[1, 2]])).rejects.toThrow(/placeholder of its own/);
  });

  it('answers a prepared text on every connection at once, prepared once per connection on PostgreSQL only', async () => {
    // Every pooled connection at once, each running the prepared text twice. PGlite runs one PostgreSQL session for
    // all its connections, so a name there would not belong to the connection that prepared it: none is named.
    const named = await Promise.all(
      Array.from({ length: 5 }, () =>
        em.fork().transactional(async (tx) => {
          for (const n of [1, 2]) expect(await sql(tx, PREPARED, [n, 'x'], true)).toEqual([{ a: String(n), b: 'x' }]);
          const rows = await sql<{ name: string }>(
            tx,
            `select "name" from pg_prepared_statements where "statement" = ?`,
            [PREPARED.replace('?', '$1').replace('?', '$2')],
          );
          return rows.length;
        }),
      ),
    );
    if (kind === 'postgres') expect(named).toEqual([1, 1, 1, 1, 1]);
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
