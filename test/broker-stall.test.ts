// Black-box: Redis or NATS frozen with SIGSTOP (its connections stay open, nothing answers: a stopped host, a partition,
// a stuck failover). Sign-in, writes and an API key's first read pay at most BROKER_TIMEOUT_MS once, then nothing;
// `/ready` says `degraded` while it lasts and `ready` again soon after SIGCONT, no restart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, PROJECT } from './support/client';
import { startNats, startRedis, type FaultServer } from './support/fault-servers';
import { ADMIN, startService, UNLIMITED, type TestService } from './support/service';
import { waitFor } from './support/wait';

const app = `/app/v1${PROJECT}`;
const api = `/api/v1${PROJECT}`;
/** BROKER_TIMEOUT_MS here (a setting; 1000 by default): the most one request waits on a stalled broker. */
const TIMEOUT_MS = 500;
/** What a loaded two-core machine adds to a request's own time (docs/operating/README.md states the bound). */
const SLACK_MS = 800;
/** Once the circuit is open a request pays nothing for the broker: well under one time-out. */
const UNPAID_MS = 250;

const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)];
async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const started = Date.now();
  const value = await fn();
  return [value, Date.now() - started];
}

interface Fixture {
  broker: FaultServer;
  service: TestService;
  client: Client;
  token: string;
  typeId: string;
  keys: string[];
}

/** A broker of the test's own, a service using it (Redis: also for the rate limits), a published type, three keys. */
function useService(startBroker: () => Promise<FaultServer>, variable: 'REDIS_URL' | 'NATS_URL') {
  const fx = { keys: [] as string[] } as Fixture;
  beforeAll(async () => {
    fx.broker = await startBroker();
    fx.service = await startService({
      env: { ...UNLIMITED, EMBEDDINGS: 'off', [variable]: fx.broker.url, BROKER_TIMEOUT_MS: String(TIMEOUT_MS) },
    });
    fx.client = new Client(fx.service.url);
    fx.token = await fx.client.login();
    fx.typeId = (
      await write(fx, 'POST', '/content-types', {
        name: 'Page',
        schema: { type: 'object', properties: { title: { type: 'string' } } },
      })
    ).id;
    await write(fx, 'POST', `/content-types/${fx.typeId}/publish`);
    for (let i = 0; i < 3; i++) fx.keys.push((await write(fx, 'POST', '/api-keys', { name: `reader-${i}` })).key);
  });
  afterAll(async () => {
    fx.broker?.thaw();
    await fx.service?.destroy();
    await fx.broker?.destroy();
  });
  return fx;
}

async function write(fx: Pick<Fixture, 'client' | 'token'>, method: string, path: string, body?: unknown) {
  const res = await fx.client.call(method, `${app}${path}`, { token: fx.token, body });
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  return res.body;
}

const creates = async (fx: Fixture, label: string, n: number) => {
  const times: number[] = [];
  for (let i = 0; i < n; i++)
    times.push(
      (await timed(() => write(fx, 'POST', '/content', { typeId: fx.typeId, name: `${label}-${i}`, content: {} })))[1],
    );
  return times;
};

const readyBody = async (fx: Fixture) => (await fx.client.call('GET', '/ready')).body;

/** While frozen, `/ready` answers 200 `degraded` naming the broker; after SIGCONT, `ready` again within seconds. */
async function degradesThenHeals(fx: Fixture, expected: Record<string, string>, whileFrozen: () => Promise<void>) {
  fx.broker.freeze();
  try {
    await whileFrozen();
    const degraded = await waitFor(
      '/ready degraded',
      async () => ((b) => b.status === 'degraded' && b)(await readyBody(fx)),
      {
        timeoutMs: 3000,
        intervalMs: 100,
      },
    );
    expect(degraded).toEqual({ status: 'degraded', ...expected });
    const ready = await fx.client.call('GET', '/ready');
    expect(ready.status).toBe(200);
  } finally {
    fx.broker.thaw();
  }
  const thawed = Date.now();
  await waitFor('/ready ready after SIGCONT', async () => (await readyBody(fx)).status === 'ready', {
    timeoutMs: 5000,
    intervalMs: 100,
  });
  return Date.now() - thawed;
}

describe('Redis frozen (event broker and rate-limit store)', () => {
  const fx = useService(startRedis, 'REDIS_URL');

  it('sign-in, writes and a key’s first read pay the time-out at most once; /ready degrades, then heals after SIGCONT', async () => {
    const before = await creates(fx, 'before', 7);
    const [, signInBefore] = await timed(() => fx.client.login());
    const healedMs = await degradesThenHeals(fx, { broker: 'down', redis: 'down' }, async () => {
      // A wrong password: the sign-in throttle and the address's budget are in Redis.
      const [wrong, wrongMs] = await timed(() =>
        fx.client.call('POST', '/app/v1/auth/login', { body: { email: ADMIN.email, password: 'wrong password' } }),
      );
      expect(wrong.status).toBe(401);
      expect(wrongMs).toBeLessThan(TIMEOUT_MS + SLACK_MS);
      // The circuit is open now: the next sign-in pays nothing for Redis.
      const [, signInMs] = await timed(() => fx.client.login());
      expect(signInMs).toBeLessThan(signInBefore + UNPAID_MS);
      // Each key's budget is leased from Redis on its first request: not waited on any more either.
      for (const key of fx.keys) {
        const [read, readMs] = await timed(() => fx.client.call('GET', `${api}/content-types`, { apiKey: key }));
        expect(read.status).toBe(200);
        expect(readMs).toBeLessThan(UNPAID_MS);
      }
      const during = await creates(fx, 'during', 7);
      expect(Math.max(...during)).toBeLessThan(TIMEOUT_MS + SLACK_MS);
      // Before: every write waited 250 ms for its announcement.
      expect(median(during)).toBeLessThan(median(before) + 100);
    });
    expect(healedMs).toBeLessThan(5000);
    await creates(fx, 'after', 2);
    expect(fx.service.output()).not.toMatch(/unexpected error/);
  }, 60_000);
});

describe('NATS frozen (event broker)', () => {
  const fx = useService(startNats, 'NATS_URL');

  it('writes pay the announcement wait at most once; /ready degrades, then heals after SIGCONT', async () => {
    const before = await creates(fx, 'before', 7);
    const healedMs = await degradesThenHeals(fx, { broker: 'down' }, async () => {
      const during = await creates(fx, 'during', 7);
      expect(Math.max(...during)).toBeLessThan(TIMEOUT_MS + SLACK_MS);
      expect(median(during)).toBeLessThan(median(before) + 100);
    });
    expect(healedMs).toBeLessThan(5000);
    await creates(fx, 'after', 2);
    expect(fx.service.output()).not.toMatch(/unexpected error/);
  }, 60_000);
});
