// Benchmark helpers: start processes, run bounded autocannon loads, and report against a bare node:http baseline.
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** A `/proc/<pid>/stat` line's fields after the process name: `[11]` utime, `[12]` stime, `[13]` cutime, `[14]` cstime. */
export const statFields = (stat) => stat.split(') ')[1].split(' ');

/** CPU seconds used so far by every PostgreSQL process on the machine, those that exited included. */
export function databaseCpuSeconds() {
  let sum = 0;
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (!stat.includes('(postgres)')) continue;
      const fields = statFields(stat);
      // utime + stime, and cutime + cstime: the postmaster's share holds the backends that exited (pgbench's).
      sum += (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / 100;
    } catch {
      // exited meanwhile
    }
  }
  return sum;
}

/** CPU seconds (user + system, all threads) a process has used so far (clock ticks of 10 ms). */
export function cpuSecondsOf(pid) {
  const fields = statFields(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
export const ADMIN = { email: 'bench@example.com', password: 'bench-password-123' };
export const JWT_SECRET = 'bench-secret-bench-secret-bench-secret-0';
export const SUBGRAPH_SECRET = 'bench-subgraph-secret-bench-subgraph-0';

export async function freePort() {
  return new Promise((resolve, reject) => {
    const s = createNetServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** A fresh database on the local PostgreSQL server; `drop()` removes it. */
export async function createDatabase() {
  const name = `cp_bench_${Date.now().toString(36)}`;
  for (const user of ['postgres', 'root']) {
    const admin = new pg.Client({ connectionString: `postgres://${user}@127.0.0.1:5432/test` });
    try {
      await admin.connect();
    } catch {
      continue;
    }
    await admin.query(`create database "${name}"`);
    await admin.end();
    return {
      url: `postgres://${user}@127.0.0.1:5432/${name}`,
      async drop() {
        const c = new pg.Client({ connectionString: `postgres://${user}@127.0.0.1:5432/test` });
        await c.connect();
        await c.query(`drop database if exists "${name}" with (force)`);
        await c.end();
      },
    };
  }
  throw new Error('no local PostgreSQL server reachable');
}

/**
 * Spawns a built entry point and resolves with its URL once it logs `ready`. SERVICE_FLAGS adds Node flags to every
 * service a bench starts (`--perf-basic-prof`, so that `perf` names the JavaScript it samples).
 */
export function spawnNode(entry, env, ready, { flags = [], root = ROOT } = {}) {
  const extra = process.env.SERVICE_FLAGS?.split(' ').filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...flags, ...extra, join(root, entry)], {
    cwd: root,
    env: { PATH: process.env.PATH, NODE_ENV: 'production', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${entry} did not start:\n${out}`)), 90_000);
    const onData = (c) => {
      out += c;
      const line = out.split('\n').find((l) => ready.test(l));
      if (line) {
        clearTimeout(timer);
        resolve({
          url: JSON.parse(line).url,
          pid: child.pid,
          stop: () => new Promise((r) => (child.once('exit', r), child.kill('SIGTERM'))),
        });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (c) => (out += c));
    child.once('exit', (code) => reject(new Error(`${entry} exited ${code}:\n${out}`)));
  });
}

/**
 * The gateway logs at info when listening; benchmarks keep other logs quiet. `flags` go to node; `root`: another
 * checkout's build (e.g. the code before a change), run on the same machine in the same run.
 */
export async function startGateway(env, options) {
  const port = await freePort();
  return spawnNode(
    'apps/gateway/dist/main.js',
    {
      PORT: String(port),
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      JWT_SECRET,
      SUBGRAPH_SECRET,
      LOG_LEVEL: 'info',
      RATE_LIMIT_PER_MINUTE: '100000000',
      RATE_LIMIT_PER_HOUR: '100000000',
      ...env,
    },
    /content platform listening/,
    options,
  );
}

export async function login(url) {
  const res = await fetch(`${url}/app/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(ADMIN),
  });
  if (!res.ok) throw new Error(`login failed: ${res.status}`);
  return (await res.json()).token;
}

/**
 * The default project's admin REST API as its administrator: `call(method, path, body)` under
 * `/app/v1/organizations/default/projects/default`, answering the parsed body; anything but 2xx throws.
 */
export async function adminCaller(url) {
  const token = await login(url);
  return async (method, path, body) => {
    const res = await fetch(`${url}/app/v1/organizations/default/projects/default${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body && JSON.stringify(body),
    });
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return res.json();
  };
}

/** A bare node:http server answering a fixed 1 KB JSON body: the baseline every result is divided by. */
export async function startBaseline() {
  const body = JSON.stringify({ data: 'x'.repeat(1000) });
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${server.address().port}`, stop: () => new Promise((r) => server.close(r)) };
}

export const DURATION_S = Number(process.env.BENCH_SECONDS ?? 5);

/** One bounded load: `connections` concurrent clients for DURATION_S seconds; fails on any non-2xx (or non-`expectStatus`). */
export async function load(name, { expectStatus, ...options }) {
  const result = await autocannon({ connections: 10, duration: DURATION_S, ...options });
  const wrong = expectStatus
    ? result.requests.total - (result.statusCodeStats?.[expectStatus]?.count ?? 0)
    : result.non2xx;
  const errors = wrong + result.errors + result.timeouts;
  if (errors > 0) throw new Error(`${name}: ${errors} failed requests of ${result.requests.total}`);
  return { name, rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 };
}

export function report(title, baseline, rows) {
  const lines = [
    `### ${title}`,
    '',
    `${DURATION_S} s per scenario, 10 connections, ${new Date().toISOString()}`,
    '',
    '| scenario | req/s | p50 ms | p99 ms | throughput vs baseline |',
    '|---|---:|---:|---:|---:|',
    ...[baseline, ...rows].map(
      (r) => `| ${r.name} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${(r.rps / baseline.rps).toFixed(3)} |`,
    ),
  ];
  console.log(lines.join('\n'));
  return lines.join('\n');
}

/**
 * A W2a floor server (`read-floor-server.mjs`, `read-arch-floor-server.mjs`): bare node:http on `PORT` answering
 * `GET /app/v1/organizations/{o}/projects/{p}/content/{id}` with what `read(params, headers)` returns (an entry or
 * undefined for 404); logs `{"url":…}` when listening, calls `close` on SIGTERM.
 */
export function serveAdminRead(read, close) {
  const route = /^\/app\/v1\/organizations\/([^/]+)\/projects\/([^/]+)\/content\/([^/?]+)$/;
  const server = createServer(async (req, res) => {
    const answer = (status, body) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const error = (status, code, message) => answer(status, { error: { code, message, details: {} } });
    try {
      const match = route.exec(req.url ?? '');
      if (!match) return error(404, 'NOT_FOUND', 'no route');
      const [, organizationId, projectId, id] = match;
      const entry = await read({ organizationId, projectId, id }, req.headers);
      if (entry === undefined) return error(404, 'NOT_FOUND', 'no such entry');
      answer(200, entry);
    } catch (err) {
      error(500, 'INTERNAL', String(err));
    }
  });
  server.listen(Number(process.env.PORT), '127.0.0.1', () => {
    console.log(JSON.stringify({ url: `http://127.0.0.1:${process.env.PORT}` }));
  });
  process.on('SIGTERM', () => server.close(() => close().then(() => process.exit(0))));
}

/**
 * Seeds `count - 1` copies of one entry in SQL, in one transaction: for each `[table, key, replace, where]`, the rows
 * whose `key` column names the entry are copied once per copy, with the columns in `replace` set by SQL expressions
 * over the source row `t` and the copy `s` (`s.i` its number, `s.id` its new id); `where` narrows the source rows.
 * The published projection's trigger runs at commit, as for writes through the API. Returns the seconds it took.
 */
export async function copyEntry(client, entryId, count, tables) {
  const began = performance.now();
  await client.query('begin');
  await client.query(
    `create temporary table seq on commit drop as select i, gen_random_uuid()::text as id from generate_series(1, $1) i`,
    [count - 1],
  );
  for (const [table, key, replace, where = ''] of tables) {
    const { rows } = await client.query(
      `select column_name from information_schema.columns where table_name = $1 and is_generated = 'NEVER'`,
      [table],
    );
    const columns = rows.map((r) => r.column_name);
    const names = columns.map((c) => `"${c}"`).join(', ');
    const values = columns.map((c) => replace[c] ?? `t."${c}"`).join(', ');
    await client.query(
      `insert into "${table}" (${names}) select ${values} from "${table}" t, seq s where t."${key}" = $1${where}`,
      [entryId],
    );
  }
  await client.query('commit');
  await client.query('analyze');
  return (performance.now() - began) / 1000;
}
