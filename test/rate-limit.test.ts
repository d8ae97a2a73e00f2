// Black-box: rate limits (D5) shared by REST and GraphQL and by two service processes, on PostgreSQL and on Redis.
import { createPostgresDatabase } from '@cp/db/testing';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client as Pg } from 'pg';
import { Client, PROJECT, type HttpResult } from './support/client';
import { ADMIN, freePort, startService, type TestService } from './support/service';

const PER_MINUTE = 6;
const ANONYMOUS_PER_MINUTE = 4;
const env = { RATE_LIMIT_PER_MINUTE: String(PER_MINUTE), RATE_LIMIT_ANONYMOUS_PER_MINUTE: String(ANONYMOUS_PER_MINUTE) };

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

  beforeAll(async () => {
    const db = await createPostgresDatabase();
    drop = db.drop;
    a = await startService({ databaseUrl: db.url, env });
    b = await startService({ databaseUrl: db.url, env });
    apiA = new Client(a.url);
    apiB = new Client(b.url);
  });
  afterAll(async () => {
    await a?.destroy();
    await b?.destroy();
    await drop?.();
  });

  it('counts one budget per token across REST, GraphQL and both processes; 429 with Retry-After when over', async () => {
    const token = await apiA.login(); // anonymous budget: 1 of 4
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
    expectRefused(await apiB.call('GET', '/app/v1/auth/me', { token, headers: { 'x-forwarded-for': '10.9.8.7', 'x-request-id': 'fresh', 'x-real-ip': '10.1.1.1' } }));
  });

  it('gives each API key its own budget, shared by /api/v1 and GraphQL on both processes', async () => {
    const token = await apiB.login(); // anonymous budget: 2 of 4
    const created = await apiB.call('POST', `/app/v1${PROJECT}/api-keys`, { token, body: { name: 'limited' } });
    const apiKey = created.body.key as string;
    for (let i = 0; i < PER_MINUTE; i++) {
      const res =
        i % 2 === 0
          ? await apiB.call('GET', `/api/v1${PROJECT}/content-types`, { apiKey })
          : await apiA.graphql('{ contentTypes(organizationId: "default", projectId: "default") { data { id } } }', {}, { apiKey });
      expect(res.status).toBe(200);
      expectHeaders(res, PER_MINUTE, PER_MINUTE - 1 - i);
    }
    expectRefused(await apiA.call('GET', `/api/v1${PROJECT}/content-types`, { apiKey }));
    // The token that created the key still has its own budget.
    expect((await apiA.call('GET', '/app/v1/auth/me', { token })).status).toBe(200);
  });

  it('limits requests without a credential (sign-in) per client address with the lower budget', async () => {
    const wrong = { email: ADMIN.email, password: 'wrong-password' };
    const first = await apiA.call('POST', '/app/v1/auth/login', { body: wrong });
    expect(first.status).toBe(401);
    expectHeaders(first, ANONYMOUS_PER_MINUTE, 1);
    expect((await apiB.call('POST', '/app/v1/auth/login', { body: wrong })).status).toBe(401);
    expectRefused(await apiA.call('POST', '/app/v1/auth/login', { body: { email: ADMIN.email, password: ADMIN.password } }));
    expectRefused(await apiB.call('POST', '/app/v1/auth/login', { body: wrong, headers: { 'x-forwarded-for': '203.0.113.9' } }));
    // Guessing credentials spends the same budget: once it is gone, bad tokens and keys get 429, not 401.
    expectRefused(await apiA.call('GET', '/app/v1/auth/me', { token: 'guess' }));
    expectRefused(await apiB.graphql('{ me { id } }', {}, { apiKey: `cpk_live_${'A'.repeat(43)}` }));
  });
});

const redisServer = spawnSync('redis-server', ['--version']).status === 0;

describe.skipIf(!redisServer)('rate limits across two processes on one Redis (REDIS_URL)', () => {
  let redis: ChildProcess;
  let a: TestService;
  let b: TestService;
  let database: { url: string; drop(): Promise<void> };

  beforeAll(async () => {
    const port = await freePort();
    redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    await new Promise((r) => setTimeout(r, 300));
    database = await createPostgresDatabase();
    const withRedis = { ...env, REDIS_URL: `redis://127.0.0.1:${port}` };
    a = await startService({ databaseUrl: database.url, env: withRedis });
    b = await startService({ databaseUrl: database.url, env: withRedis });
  });
  afterAll(async () => {
    await a?.destroy();
    await b?.destroy();
    await database?.drop();
    redis?.kill();
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
    const { rows } = await sql.query(`select to_regclass('public.rate_limit') as t`);
    await sql.end();
    expect(rows[0].t).toBeNull();
  });
});
