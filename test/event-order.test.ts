// Black-box: event positions follow the commit order of each resource's changes, whatever the replicas' clocks say.
import fc from 'fast-check';
import { join } from 'node:path';
import { Client as Pg } from 'pg';
import { createPostgresDatabase } from '@cp/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, PROJECT, type HttpResult } from './support/client';
import { startService, type TestService, UNLIMITED } from './support/service';

const app = `/app/v1${PROJECT}`;
const RUNS = Number(process.env.FC_RUNS ?? 6);
const SEED = Number(process.env.FC_SEED ?? 20261126);
/** The dispatchers' advisory lock (packages/db/src/events/dispatcher.ts): holding it keeps every event unnumbered. */
const DISPATCH_LOCK = 7_240_114;
/** Replica B's clock runs this far behind A's: far more than a write takes, so ordering by clock would invert. */
const SKEW_MS = -5_000;

describe('event order across replicas with skewed clocks (PostgreSQL)', () => {
  let a: TestService;
  let b: TestService;
  let drop: () => Promise<void>;
  let pg: Pg;
  const replicas: { client: Client; token: string }[] = [];
  let typeId: string;

  const write = async (replica: number, method: string, path: string, body?: unknown) => {
    const { client, token } = replicas[replica]!;
    const res = await client.call(method, `${app}${path}`, { token, body });
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
    return res.body;
  };
  const committedEvents = async (resourceId: string) =>
    Number((await pg.query('select count(*) from "event" where "resource_id" = $1', [resourceId])).rows[0].count);

  beforeAll(async () => {
    const db = await createPostgresDatabase();
    drop = db.drop;
    a = await startService({ databaseUrl: db.url, env: UNLIMITED });
    b = await startService({
      databaseUrl: db.url,
      env: {
        ...UNLIMITED,
        CLOCK_SKEW_MS: String(SKEW_MS),
        NODE_OPTIONS: `--require ${join(__dirname, 'support/skewed-clock.cjs')}`,
      },
    });
    for (const service of [a, b]) {
      const client = new Client(service.url);
      replicas.push({ client, token: await client.login() });
    }
    pg = new Pg({ connectionString: db.url });
    await pg.connect();
    typeId = (await write(0, 'POST', '/content-types', { name: 'Page', schema: { type: 'object' } })).id;
    await write(0, 'POST', `/content-types/${typeId}/publish`);
  }, 120_000);
  afterAll(async () => {
    await pg?.end();
    await a?.stop();
    await b?.stop();
    await drop?.();
  });

  it('skews replica B clock behind A', async () => {
    // The preload works: B's own timestamps (its answer's `updatedAt`) lag A's by about the skew.
    const id = (await write(0, 'POST', '/content', { typeId, name: 'clock', content: {} })).id;
    const before = Date.now();
    const updated = await write(1, 'PUT', `/content/${id}`, { content: { n: 1 } });
    expect(Date.parse(updated.updatedAt) - before).toBeLessThan(SKEW_MS / 2);
  });

  it("lists each resource's events in the order its changes committed, alternating between replicas", async () => {
    // Each case: successive changes of one content entry (update, publish, update, publish, …), each through the replica
    // the case picks, each committed before the next starts, while the test holds the dispatchers off: all of them are
    // unnumbered when the dispatcher numbers them, the situation of a dispatcher that runs late (a busy or restarted
    // replica, a long batch). Writes answer only once their events are numbered and announced, so the test waits for
    // each commit in the database instead of for the answer, and collects the answers after releasing the lock.
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 0, max: 1 }), { minLength: 3, maxLength: 7 }), async (through) => {
        const id = (await write(0, 'POST', '/content', { typeId, name: `entry-${run++}`, content: {} })).id;
        const expected: { type: string; version: number | null }[] = [{ type: 'content.created', version: null }];
        const answers: Promise<HttpResult>[] = [];
        await pg.query('select pg_advisory_lock($1)', [DISPATCH_LOCK]);
        try {
          for (const [step, replica] of through.entries()) {
            const { client, token } = replicas[replica]!;
            const publish = step % 2 === 1;
            answers.push(
              publish
                ? client.call('POST', `${app}/content/${id}/publish`, { token })
                : client.call('PUT', `${app}/content/${id}`, { token, body: { content: { step } } }),
            );
            expected.push(
              publish
                ? { type: 'content.published', version: (step + 1) / 2 }
                : { type: 'content.updated', version: null },
            );
            const deadline = Date.now() + 10_000;
            while ((await committedEvents(id)) < expected.length) {
              if (Date.now() > deadline) throw new Error(`change ${step} through replica ${replica} did not commit`);
              await new Promise((r) => setTimeout(r, 5));
            }
          }
        } finally {
          await pg.query('select pg_advisory_unlock($1)', [DISPATCH_LOCK]);
        }
        for (const res of await Promise.all(answers)) expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
        const listed = await write(0, 'GET', `/content/${id}/events?limit=100`);
        // `occurredAt` is the database's clock, one for every replica: in position order it never goes back.
        const times = listed.data.map((e: { occurredAt: string }) => Date.parse(e.occurredAt));
        expect(times).toEqual([...times].sort((x, y) => x - y));
        expect(
          listed.data.map((e: { type: string; version: number | null }) => ({ type: e.type, version: e.version })),
        ).toEqual(expected);
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
  }, 60_000);
});
