// Black-box: two gateway replicas on one PostgreSQL while their Redis broker goes down and comes back (NATS and Redis
// reconnecting after long outages: broker-reconnect.test.ts).
import { createPostgresDatabase } from '@cp/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, PROJECT } from './support/client';
import { startRedis, type FaultServer } from './support/fault-servers';
import { startService, type TestService } from './support/service';
import { openSse } from './support/sse';
import { waitFor } from './support/wait';

const app = `/app/v1${PROJECT}`;
const api = `/api/v1${PROJECT}`;
/** Every replica applies every committed event within this long, announced or not (docs/operating/README.md). */
const VISIBLE_WITHIN_MS = 2000;
/** Measuring slack on a shared, loaded machine: the design bound is VISIBLE_WITHIN_MS. */
const SLACK_MS = 500;

const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)];

interface Replicas {
  broker: FaultServer;
  a: TestService;
  b: TestService;
  A: Client;
  B: Client;
  token: string;
  key: string;
  typeId: string;
  drop: () => Promise<void>;
}

/** A broker of the test's own, two replicas on a fresh database using it, logged in on A, a published type, a client key. */
function useReplicas(startBroker: () => Promise<FaultServer>, variable: 'REDIS_URL' | 'NATS_URL') {
  const fx = {} as Replicas;
  beforeAll(async () => {
    fx.broker = await startBroker();
    const db = await createPostgresDatabase();
    fx.drop = db.drop;
    const common = { EMBEDDINGS: 'off', [variable]: fx.broker.url };
    [fx.a, fx.b] = await Promise.all([
      startService({ databaseUrl: db.url, env: common }),
      startService({ databaseUrl: db.url, env: common }),
    ]);
    fx.A = new Client(fx.a.url);
    fx.B = new Client(fx.b.url);
    fx.token = await fx.A.login();
    fx.typeId = (
      await write(fx, 'POST', '/content-types', {
        name: 'Page',
        schema: { type: 'object', properties: { title: { type: 'string' } } },
      })
    ).id;
    await write(fx, 'POST', `/content-types/${fx.typeId}/publish`);
    fx.key = (await write(fx, 'POST', '/api-keys', { name: 'reader' })).key;
  });
  afterAll(async () => {
    await Promise.all([fx.a?.stop(), fx.b?.stop()]);
    await fx.drop?.();
    await fx.broker?.destroy();
  });
  return fx;
}

async function write(fx: { A: Client; token: string }, method: string, path: string, body?: unknown) {
  const res = await fx.A.call(method, `${app}${path}`, { token: fx.token, body });
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  return res.body;
}

const health = (client: Client) => client.call('GET', '/health');

describe('Redis broker outage (two replicas)', () => {
  const fx = useReplicas(startRedis, 'REDIS_URL');

  it('writes do not wait on the dead broker, every replica serves each publish within 2 s, and Redis errors are logged once, not printed', async () => {
    const timed = async (fn: () => Promise<unknown>) => {
      const started = Date.now();
      await fn();
      return Date.now() - started;
    };
    const create = (name: string) =>
      write(fx, 'POST', '/content', { typeId: fx.typeId, name, content: { title: name } });
    const before: number[] = [];
    for (let i = 0; i < 7; i++) before.push(await timed(() => create(`before-${i}`)));

    const streams = await Promise.all(
      [fx.a, fx.b].map((r) => openSse(`${r.url}${app}/content/events`, { authorization: `Bearer ${fx.token}` })),
    );
    /** Both replicas' SSE subscribers get the event, broker or not. */
    const streamed = async (type: string, id: string) => {
      const deadline = Date.now() + VISIBLE_WITHIN_MS + SLACK_MS;
      for (const stream of streams) {
        // Earlier events (updates, publishes) come first, in order: skip to this one.
        for (;;) {
          const [event] = await stream.take(1, Math.max(1, deadline - Date.now()));
          if (event.data.type === type && event.data.resourceId === id) break;
        }
      }
    };
    const id = (await create('Home')).id;
    await streamed('content.created', id);
    await write(fx, 'PUT', `/content/${id}`, { content: { title: 'v1' } });
    await write(fx, 'POST', `/content/${id}/publish`);
    const read = (client: Client) => client.call('GET', `${api}/content/${id}/resolved`, { apiKey: fx.key });
    for (const client of [fx.A, fx.B]) {
      await read(client);
      const hit = await read(client);
      expect(hit.headers.get('x-cache')).toBe('HIT');
      expect(hit.body).toMatchObject({ version: 1, content: { title: 'v1' } });
    }

    await fx.broker.stop();
    // The clients notice a killed server at once (the connection closes).
    await new Promise((r) => setTimeout(r, 500));
    const during: number[] = [];
    for (let i = 0; i < 7; i++) during.push(await timed(() => create(`during-${i}`)));
    // A create does not wait on the failing announcement (that would make it ~15× slower at the median).
    expect(median(during)).toBeLessThan(median(before) * 3 + 150);

    await write(fx, 'PUT', `/content/${id}`, { content: { title: 'v2' } });
    const publishMs = await timed(() => write(fx, 'POST', `/content/${id}/publish`));
    expect(publishMs).toBeLessThan(median(before) * 3 + 500);
    // The writing replica serves its own write at once; the other one within the polling bound, no announcement.
    expect((await read(fx.A)).body).toMatchObject({ version: 2, content: { title: 'v2' } });
    const waited = Date.now();
    const onB = await waitFor(
      'B serves version 2',
      async () => ((r) => (r.body?.version === 2 ? r : undefined))(await read(fx.B)),
      {
        timeoutMs: 10_000,
        intervalMs: 100,
      },
    );
    expect(onB.body).toMatchObject({ version: 2, content: { title: 'v2' } });
    expect(Date.now() - waited).toBeLessThan(VISIBLE_WITHIN_MS + SLACK_MS);
    const streamedDuring = (await create('streamed-during')).id;
    await streamed('content.created', streamedDuring);
    // Degraded, not out of service: correct answers continue, a little later.
    const ready = await fx.B.call('GET', '/ready');
    expect(ready.status).toBe(200);
    // Redis holds the rate limits too: the in-memory limiters count meanwhile.
    expect(ready.body).toEqual({ status: 'degraded', broker: 'down', redis: 'down' });
    expect((await health(fx.B)).body).toMatchObject({ status: 'degraded' });

    // Another failed reconnect attempt or two, then Redis returns: both heal without a restart.
    await new Promise((r) => setTimeout(r, 1000));
    await fx.broker.start();
    await waitFor(
      'A and B report ok',
      async () =>
        (await Promise.all([health(fx.A), health(fx.B)])).every((r) => r.status === 200 && r.body.status === 'ok'),
      { timeoutMs: 15_000, intervalMs: 100 },
    );
    await write(fx, 'PUT', `/content/${id}`, { content: { title: 'v3' } });
    await write(fx, 'POST', `/content/${id}/publish`);
    await waitFor('B serves version 3', async () => (await read(fx.B)).body?.version === 3, {
      timeoutMs: VISIBLE_WITHIN_MS + SLACK_MS,
      intervalMs: 100,
    });
    const streamedAfter = (await create('streamed-after')).id;
    await streamed('content.created', streamedAfter);
    for (const stream of streams) stream.close();

    for (const replica of [fx.a, fx.b]) {
      const output = replica.output();
      expect(output).not.toMatch(/Unhandled error event/);
      // One line per client and change of state (broker publisher/subscriber, rate-limit store), not one per attempt.
      expect(output.match(/connection lost/g)?.length ?? 0).toBeLessThanOrEqual(2);
      expect(output).toMatch(/event broker \(Redis\) connection restored/);
    }
  });
});
