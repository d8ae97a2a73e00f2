// Black-box: rate limits per caller, shared by REST and GraphQL and by two service processes, on PostgreSQL and on Redis.
import { createPostgresDatabase } from '@cp/db/testing';
import { spawnSync } from 'node:child_process';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client as Pg } from 'pg';
import { Client, PROJECT, type HttpResult } from './support/client';
import { startRedis, type FaultServer } from './support/fault-servers';
import { ADMIN, startService, type TestService } from './support/service';

const PER_MINUTE = 6;
const ANONYMOUS_PER_MINUTE = 5;
const SIGN_IN_FAILURES = 3;
const env = {
  RATE_LIMIT_PER_MINUTE: String(PER_MINUTE),
  RATE_LIMIT_ANONYMOUS_PER_MINUTE: String(ANONYMOUS_PER_MINUTE),
  SIGN_IN_FAILURES_PER_ACCOUNT: String(SIGN_IN_FAILURES),
};
const PASSWORD = 'a long enough passphrase 7';

/** A sign-in sent from another loopback address (127.0.0.x), as a client spreading its guesses over addresses would. */
function loginFrom(baseUrl: string, localAddress: string, email: string, password: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ email, password });
    const req = request(
      `${baseUrl}/app/v1/auth/login`,
      {
        method: 'POST',
        localAddress,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function expectHeaders(res: HttpResult, limit: number, remaining: number) {
  expect(res.headers.get('ratelimit-limit')).toBe(String(limit));
  expect(res.headers.get('ratelimit-remaining')).toBe(String(remaining));
  const reset = Number(res.headers.get('ratelimit-reset'));
  expect(reset).toBeGreaterThan(0);
  expect(reset).toBeLessThanOrEqual(60);
}

function expectRefused(res: HttpResult) {
  expect(res.status).toBe(429);
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(res.headers.get('ratelimit-remaining')).toBe('0');
  const code = res.body.error?.code ?? res.body.errors?.[0]?.extensions?.code;
  expect(code).toBe('RATE_LIMITED');
}

describe('rate limits across two processes on one PostgreSQL', () => {
  let a: TestService;
  let b: TestService;
  let apiA: Client;
  let apiB: Client;
  let drop: () => Promise<void>;
  let admin: string;
  let apiKey: string;
  const users: { email: string; token: string }[] = [];

  beforeAll(async () => {
    const db = await createPostgresDatabase();
    drop = db.drop;
    a = await startService({ databaseUrl: db.url, env });
    b = await startService({ databaseUrl: db.url, env });
    apiA = new Client(a.url);
    apiB = new Client(b.url);
    // The admin spends 4 of its 6 requests here, and 3 sign-ins of the address's 5 happen.
    admin = await apiA.login();
    const roles = await apiA.call('GET', '/app/v1/organizations/default/roles', { token: admin });
    const owner = roles.body.data.find((r: { name: string }) => r.name === 'Owner');
    for (const name of ['one', 'two']) {
      const email = `${name}@limits.example`;
      const created = await apiB.call('POST', '/app/v1/organizations/default/users', {
        token: admin,
        body: { email, name, password: PASSWORD, roleId: owner.id },
      });
      expect(created.status).toBe(201);
      users.push({ email, token: await apiB.login(email, PASSWORD) });
    }
    apiKey = (await apiB.call('POST', `/app/v1${PROJECT}/api-keys`, { token: admin, body: { name: 'limited' } })).body
      .key;
  });
  afterAll(async () => {
    await a?.destroy();
    await b?.destroy();
    await drop?.();
  });

  it('counts one budget per user across REST, GraphQL and both processes; 429 with Retry-After when over', async () => {
    const token = users[0].token;
    for (let i = 0; i < PER_MINUTE; i++) {
      const res =
        i % 2 === 0
          ? await apiA.call('GET', `/app/v1${PROJECT}/content-types`, { token })
          : await apiB.graphql('{ me { id } }', {}, { token });
      expect(res.status).toBe(200);
      expectHeaders(res, PER_MINUTE, PER_MINUTE - 1 - i);
    }
    expectRefused(await apiA.call('GET', `/app/v1${PROJECT}/content-types`, { token }));
    expectRefused(await apiB.graphql('{ me { id } }', {}, { token }));
    // A header the client controls never opens a new budget.
    expectRefused(
      await apiB.call('GET', '/app/v1/auth/me', {
        token,
        headers: { 'x-forwarded-for': '10.9.8.7', 'x-request-id': 'fresh', 'x-real-ip': '10.1.1.1' },
      }),
    );
  });

  it('one budget per user whatever the header spelling, shared by the tokens it mints', async () => {
    const token = users[1].token;
    const minted = await apiA.call('POST', '/app/v1/auth/tokens', { token, body: { expiresIn: 600 } });
    expect(minted.status).toBe(201);
    expectHeaders(minted, PER_MINUTE, PER_MINUTE - 1);
    const spellings = [
      `Bearer ${token} x1`,
      `bearer ${token}`,
      `BEARER ${token}`,
      `Bearer ${minted.body.token}`,
      `Bearer ${token}`,
    ];
    for (const [i, authorization] of spellings.entries()) {
      const res = await (i % 2 ? apiA : apiB).call('GET', '/app/v1/auth/me', { headers: { authorization } });
      expect(res.status).toBe(200);
      expectHeaders(res, PER_MINUTE, PER_MINUTE - 2 - i);
    }
    for (const authorization of spellings)
      expectRefused(await apiA.call('GET', '/app/v1/auth/me', { headers: { authorization } }));
    // A token minted now would not help either: minting itself is refused.
    expectRefused(await apiB.call('POST', '/app/v1/auth/tokens', { token, body: { expiresIn: 60 } }));
  });

  it('gives each API key its own budget, shared by /api/v1 and GraphQL on both processes', async () => {
    const token = admin;
    for (let i = 0; i < PER_MINUTE; i++) {
      const res =
        i % 2 === 0
          ? await apiB.call('GET', `/api/v1${PROJECT}/content-types`, { apiKey })
          : await apiA.graphql(
              '{ contentTypes(organizationId: "default", projectId: "default") { data { id } } }',
              {},
              { apiKey },
            );
      expect(res.status).toBe(200);
      expectHeaders(res, PER_MINUTE, PER_MINUTE - 1 - i);
    }
    expectRefused(await apiA.call('GET', `/api/v1${PROJECT}/content-types`, { apiKey }));
    // The user that created the key still has its own budget.
    expect((await apiA.call('GET', '/app/v1/auth/me', { token })).status).toBe(200);
  });

  it('limits failed sign-ins per account across client addresses and both processes', async () => {
    const { email } = users[0];
    for (let i = 0; i < SIGN_IN_FAILURES; i++) {
      expect(await loginFrom(i % 2 ? b.url : a.url, `127.0.0.${11 + i}`, email, 'not the password')).toBe(401);
    }
    // Every further attempt on that account is refused, from any address, even with the right password.
    expect(await loginFrom(a.url, '127.0.0.21', email, PASSWORD)).toBe(429);
    expect(await loginFrom(b.url, '127.0.0.22', email.toUpperCase(), 'still guessing')).toBe(429);
    // Other accounts are not affected.
    expect(await loginFrom(b.url, '127.0.0.23', users[1].email, PASSWORD)).toBe(200);
  });

  it('limits requests without a credential (sign-in) per client address with the lower budget', async () => {
    const wrong = { email: ADMIN.email, password: 'wrong-password' };
    const first = await apiA.call('POST', '/app/v1/auth/login', { body: wrong }); // the address's 4th sign-in
    expect(first.status).toBe(401);
    expectHeaders(first, ANONYMOUS_PER_MINUTE, 1);
    expect((await apiB.call('POST', '/app/v1/auth/login', { body: wrong })).status).toBe(401);
    expectRefused(
      await apiA.call('POST', '/app/v1/auth/login', { body: { email: ADMIN.email, password: ADMIN.password } }),
    );
    expectRefused(
      await apiB.call('POST', '/app/v1/auth/login', { body: wrong, headers: { 'x-forwarded-for': '203.0.113.9' } }),
    );
    // Guessing credentials spends the same budget: once it is gone, bad tokens and keys get 429, not 401.
    expectRefused(await apiA.call('GET', '/app/v1/auth/me', { token: 'guess' }));
    expectRefused(await apiB.graphql('{ me { id } }', {}, { apiKey: `cpk_live_${'A'.repeat(43)}` }));
  });
});

const redisServer = spawnSync('redis-server', ['--version']).status === 0;

describe.skipIf(!redisServer)('rate limits across two processes on one Redis (REDIS_URL)', () => {
  let redis: FaultServer;
  let a: TestService;
  let b: TestService;
  let database: { url: string; drop(): Promise<void> };

  beforeAll(async () => {
    redis = await startRedis();
    database = await createPostgresDatabase();
    const withRedis = { ...env, REDIS_URL: redis.url };
    a = await startService({ databaseUrl: database.url, env: withRedis });
    b = await startService({ databaseUrl: database.url, env: withRedis });
  });
  afterAll(async () => {
    await a?.destroy();
    await b?.destroy();
    await database?.drop();
    await redis?.destroy();
  });

  it('keeps the counters in Redis, shared by both processes', async () => {
    const apiA = new Client(a.url);
    const apiB = new Client(b.url);
    const token = await apiA.login();
    for (let i = 0; i < PER_MINUTE; i++) {
      const res = await (i % 2 ? apiB : apiA).call('GET', '/app/v1/auth/me', { token });
      expect(res.status).toBe(200);
      expectHeaders(res, PER_MINUTE, PER_MINUTE - 1 - i);
    }
    expectRefused(await apiB.call('GET', '/app/v1/auth/me', { token }));
    // Nothing was counted in PostgreSQL: the store is Redis.
    const sql = new Pg({ connectionString: database.url });
    await sql.connect();
    const { rows } = await sql.query(`select count(*)::int as n from "rate_limit"`);
    await sql.end();
    expect(rows[0].n).toBe(0);
  });

  it('answers at once while Redis stalls without closing its connection (the in-memory limiters count meanwhile)', async () => {
    const api = new Client(a.url);
    redis.freeze();
    try {
      for (const request of [() => api.login(), () => api.graphql('{ __typename }', {})]) {
        const started = Date.now();
        await request();
        // Redis commands time out after a second; the request must not wait on it longer than that.
        expect(Date.now() - started).toBeLessThan(4000);
      }
      expect((await api.graphql('{ __typename }', {})).status).toBe(200);
    } finally {
      redis.thaw();
    }
  });

  it('says so on /ready while Redis stalls (200 degraded, redis: down: the replica still serves), ready again after', async () => {
    const api = new Client(a.url);
    /** Polls /ready until `expected` holds, within `ms`; the last answer. */
    const readyUntil = async (expected: (body: any) => boolean, ms: number) => {
      const deadline = Date.now() + ms;
      let res = await api.call('GET', '/ready');
      while (!expected(res.body) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
        res = await api.call('GET', '/ready');
      }
      return res;
    };
    // Ready before the stall: the test before this one thawed Redis, and the circuit closes on the next answered PING.
    expect((await readyUntil((body) => body.status === 'ready', 5000)).body).toEqual({ status: 'ready' });
    redis.freeze();
    try {
      // A PING every second, unanswered after its one-second command timeout.
      const stalled = await readyUntil((body) => body.redis === 'down', 4000);
      expect(stalled.status).toBe(200);
      expect(stalled.body).toMatchObject({ status: 'degraded', redis: 'down' });
      expect((await api.graphql('{ __typename }', {})).status).toBe(200);
    } finally {
      redis.thaw();
    }
    const back = await readyUntil((body) => body.status === 'ready', 5000);
    expect(back.body).toEqual({ status: 'ready' });
    expect(a.output()).toMatch(/rate-limit store \(Redis\) connection lost/);
    expect(a.output()).toMatch(/rate-limit store \(Redis\) connection restored/);
  });
});

describe('a shared budget under concurrent load on two processes and one PostgreSQL', () => {
  const LIMIT = 100;
  let a: TestService;
  let b: TestService;
  let database: { url: string; drop(): Promise<void> };

  beforeAll(async () => {
    database = await createPostgresDatabase();
    const loaded = { RATE_LIMIT_PER_MINUTE: String(LIMIT) };
    a = await startService({ databaseUrl: database.url, env: loaded });
    b = await startService({ databaseUrl: database.url, env: loaded });
  });
  afterAll(async () => {
    await a?.destroy();
    await b?.destroy();
    await database?.drop();
  });

  it('admits the limit within ±2 % from 150 concurrent requests, counted in an UNLOGGED table', async () => {
    const apiA = new Client(a.url);
    const apiB = new Client(b.url);
    const token = await apiA.login();
    const apiKey = (await apiA.call('POST', `/app/v1${PROJECT}/api-keys`, { token, body: { name: 'load' } })).body
      .key as string;
    let next = 0;
    const statuses: number[] = [];
    // 10 connections per process, 75 requests each process.
    const worker = async (api: Client) => {
      while (next < 150) {
        next++;
        statuses.push((await api.call('GET', `/api/v1${PROJECT}/content-types`, { apiKey })).status);
      }
    };
    await Promise.all(Array.from({ length: 20 }, (_, i) => worker(i % 2 ? apiB : apiA)));
    const admitted = statuses.filter((s) => s === 200).length;
    expect(statuses.every((s) => s === 200 || s === 429)).toBe(true);
    expect(Math.abs(admitted - LIMIT)).toBeLessThanOrEqual(LIMIT * 0.02);
    const sql = new Pg({ connectionString: database.url });
    await sql.connect();
    const { rows } = await sql.query(`select relpersistence from pg_class where relname = 'rate_limit'`);
    await sql.end();
    expect(rows[0].relpersistence).toBe('u');
  });
});
