// How row stamps are batched: the reads asked for in one turn share a query, and a read asked for while a query is on
// its way waits for the next one (a query sent before the read arrived might miss a commit the reader already saw).
import type { EntityManager } from '@mikro-orm/postgresql';
import { describe, expect, it } from 'vitest';
import { RowStamps } from './row-stamps';

/** The database's side: each query's ids, answered when the test says so, with one stamp per row. */
function database(rows: Record<string, { org: string; project: string; stamp: string }>) {
  const queries: { ids: string[]; answer(): void }[] = [];
  const em = {
    getKnex: () => ({
      raw: (_sql: string, [ids]: [string[]]) => ({
        options: () =>
          new Promise((resolve) =>
            queries.push({
              ids,
              answer: () =>
                resolve({
                  rows: ids
                    .filter((id) => rows[id])
                    .map((id) => ({
                      id,
                      organization_id: rows[id].org,
                      project_id: rows[id].project,
                      stamp: rows[id].stamp,
                    })),
                }),
            }),
          ),
      }),
    }),
  } as unknown as EntityManager;
  return { em, queries };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('row stamps', () => {
  it('share one query among the reads of one turn, each answered for its own organization and project', async () => {
    const db = database({ a: { org: 'o', project: 'p', stamp: '1/1' }, b: { org: 'o', project: 'p', stamp: '2/1' } });
    const stamps = RowStamps.entries(db.em);
    const asked = [
      stamps.of('o', 'p', 'a'),
      stamps.of('o', 'p', 'a'),
      stamps.of('o', 'p', 'b'),
      stamps.of('x', 'p', 'b'),
    ];
    asked.push(stamps.of('o', 'p', 'missing'));
    await turn();
    expect(db.queries.map((q) => q.ids)).toEqual([['a', 'b', 'missing']]);
    db.queries[0].answer();
    expect(await Promise.all(asked)).toEqual(['1/1', '1/1', '2/1', undefined, undefined]);
  });

  it('never give a read the answer of a query sent before it was asked', async () => {
    const db = database({ a: { org: 'o', project: 'p', stamp: '1/1' } });
    const stamps = RowStamps.entries(db.em);
    const first = stamps.of('o', 'p', 'a');
    await turn();
    expect(db.queries).toHaveLength(1);
    // Asked while the first query is on its way: a query of its own, sent after it was asked.
    const second = stamps.of('o', 'p', 'a');
    await turn();
    expect(db.queries).toHaveLength(2);
    let secondSettled = false;
    void second.then(() => (secondSettled = true));
    db.queries[0].answer();
    expect(await first).toBe('1/1');
    await turn();
    expect(secondSettled).toBe(false);
    db.queries[1].answer();
    expect(await second).toBe('1/1');
  });
});
