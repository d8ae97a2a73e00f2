// Auth + rate-limit overhead: one route (`POST /graphql {__typename}`) anonymous, with a JWT and with an API key, as ratios.
// Standalone: `node bench/auth-overhead.mjs` after `npm run build`, with the local PostgreSQL server at 127.0.0.1:5432.
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { RateLimiterPostgres } from 'rate-limiter-flexible';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const ADMIN = { email: 'bench@example.com', password: 'bench-password-123' };
const DURATION = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = 10;

const freePort = () =>
  new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

async function withAdmin(work) {
  const c = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
  await c.connect();
  try {
    return await work(c);
  } finally {
    await c.end();
  }
}

function startService(env) {
  const child = spawn(process.execPath, [join(ROOT, 'apps/gateway/dist/main.js')], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, NODE_ENV: 'production', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (c) => {
      out += c;
      const line = out.split('\n').find((l) => l.includes('content platform listening'));
      if (line)
        resolve({
          url: JSON.parse(line).url,
          stop: () => new Promise((r) => (child.once('exit', r), child.kill('SIGTERM'))),
        });
    });
    child.stderr.on('data', (c) => (out += c));
    child.once('exit', (code) => reject(new Error(`service exited ${code}:\n${out}`)));
  });
}

async function load(url, headers) {
  const result = await autocannon({
    url: `${url}/graphql`,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query: '{ __typename }' }),
    connections: CONNECTIONS,
    duration: DURATION,
  });
  if (result.non2xx > 0) throw new Error(`${result.non2xx} non-2xx answers`);
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 };
}

const dbName = `cp_bench_auth_${Date.now().toString(36)}`;
await withAdmin((c) => c.query(`create database "${dbName}"`));
const databaseUrl = `postgres://postgres@127.0.0.1:5432/${dbName}`;
const service = await startService({
  PORT: String(await freePort()),
  DATABASE_URL: databaseUrl,
  DATA_DIR: join(ROOT, 'data', 'bench-auth'),
  ADMIN_EMAIL: ADMIN.email,
  ADMIN_PASSWORD: ADMIN.password,
  JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0',
  // High budgets: the bench measures the limiter's cost, not its refusals.
  RATE_LIMIT_PER_MINUTE: '100000000',
  RATE_LIMIT_PER_HOUR: '100000000',
  RATE_LIMIT_ANONYMOUS_PER_MINUTE: '100000000',
});
try {
  const post = (path, body, headers = {}) =>
    fetch(`${service.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    }).then((r) => r.json());
  const { token } = await post('/app/v1/auth/login', ADMIN);
  const { key } = await post(
    '/app/v1/organizations/default/projects/default/api-keys',
    { name: 'bench' },
    { authorization: `Bearer ${token}` },
  );

  await load(service.url, {}); // warm-up
  const anonymous = await load(service.url, {});
  const jwt = await load(service.url, { authorization: `Bearer ${token}` });
  const apiKey = await load(service.url, { 'x-api-key': key });

  // The limiter alone: sequential consumes against the same PostgreSQL table, one connection.
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  const limiter = await new Promise((resolve, reject) => {
    const l = new RateLimiterPostgres(
      { storeClient: pool, tableName: 'rate_limit_bench', points: 1e9, duration: 60 },
      (err) => (err ? reject(err) : resolve(l)),
    );
  });
  const n = 2000;
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await limiter.consume('bench');
  const consumeMs = Number(process.hrtime.bigint() - start) / 1e6 / n;
  await pool.end();

  const row = (name, r) =>
    `| ${name} | ${r.rps.toFixed(0)} | ${(r.rps / anonymous.rps).toFixed(2)} | ${r.p50} | ${r.p99} |`;
  console.log(
    `\n### Auth + rate-limit overhead (POST /graphql {__typename}, ${CONNECTIONS} connections, ${DURATION}s, PostgreSQL store)\n`,
  );
  console.log('| caller | req/s | ratio to anonymous | p50 ms | p99 ms |\n|---|---|---|---|---|');
  console.log(row('anonymous (no credential lookup; one per-IP limiter)', anonymous));
  console.log(row('JWT (verify + user and role rows; minute and hour limiters)', jwt));
  console.log(row('API key (hash lookup; minute and hour limiters)', apiKey));
  console.log(`\nOne RateLimiterPostgres consume (sequential, one connection): ${consumeMs.toFixed(3)} ms.`);
} finally {
  await service.stop();
  await withAdmin((c) => c.query(`drop database if exists "${dbName}" with (force)`));
}
