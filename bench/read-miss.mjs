// Issue 12.6 helper: one client-read miss scenario (CACHE=off) against a seeded gateway, as a ratio to a node:http
// baseline from the same run; with PROFILE_DIR set the gateway runs under --cpu-prof and the profile lands there.
// `node bench/read-miss.mjs [W1|W2|W3|admin ...]` after `npm run build` (BENCH_SECONDS, BENCH_PASSES, PROFILE_DIR,
// GATEWAY_ROOT). Besides req/s it prints the gateway's CPU time per request, steadier on a shared machine.
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pgLib from 'pg';
import { ADMIN, JWT_SECRET, ROOT, createDatabase, freePort, startBaseline } from './lib.mjs';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const PASSES = Number(process.env.BENCH_PASSES ?? 2);
const PROJECT = '/organizations/default/projects/default';
const SCENARIOS = process.argv.slice(2).length ? process.argv.slice(2) : ['W1', 'admin'];

async function start(env) {
  const port = await freePort();
  const profile = process.env.PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.PROFILE_DIR}`] : [];
  // GATEWAY_ROOT: another checkout's build (e.g. the code before a change) on the same machine, same data.
  const root = process.env.GATEWAY_ROOT ?? ROOT;
  const child = spawn(process.execPath, [...profile, join(root, 'apps/gateway/dist/main.js')], {
    cwd: root,
    env: {
      PATH: process.env.PATH, NODE_ENV: 'production', LOG_LEVEL: 'warn', PORT: String(port), ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password, JWT_SECRET, RATE_LIMIT_PER_MINUTE: '100000000', RATE_LIMIT_PER_HOUR: '100000000', ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (c) => (err += c));
  let exited = false;
  child.once('exit', () => (exited = true));
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (exited) throw new Error(`service exited:\n${err}`);
    if (await fetch(`${url}/health`).then((r) => r.status === 200, () => false)) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  /** CPU seconds (user + system, all threads) the gateway process has used: steadier than req/s on a shared machine. */
  const cpu = () => {
    const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  };
  return { url, cpu, stop: () => new Promise((r) => (exited ? r() : (child.once('exit', r), child.kill('SIGTERM')))) };
}

async function json(url, path, { method = 'GET', token, body } = {}) {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

/** Same data as bench/client-reads.mjs: a content type, 20 published entries of about 2.5 KB, an API key. */
async function seed(url) {
  const { token } = await json(url, '/app/v1/auth/login', { method: 'POST', body: ADMIN });
  const app = `/app/v1${PROJECT}`;
  const schema = { type: 'object', properties: { title: { type: 'string' }, body: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } } };
  const type = await json(url, `${app}/content-types`, { method: 'POST', token, body: { name: 'Article', schema } });
  await json(url, `${app}/content-types/${type.id}/publish`, { method: 'POST', token });
  const ids = [];
  for (let i = 0; i < 20; i++) {
    const content = { title: `Article ${i}`, body: `Paragraph ${i}. `.repeat(180).slice(0, 2300), tags: ['news', `t${i % 5}`] };
    const entry = await json(url, `${app}/content`, { method: 'POST', token, body: { typeId: type.id, name: `Article ${i}`, content } });
    await json(url, `${app}/content/${entry.id}/publish`, { method: 'POST', token });
    ids.push(entry.id);
  }
  const { key } = await json(url, `${app}/api-keys`, { method: 'POST', token, body: { name: 'bench' } });
  return { token, key, id: ids[0] };
}

const W3 = JSON.stringify({ query: `{ contents(organizationId: "default", projectId: "default", limit: 20) { data { id name version content createdAt updatedAt } } }` });

function scenario(name, url, { key, token, id }) {
  const client = { 'x-api-key': key };
  return {
    W1: { url: `${url}/api/v1${PROJECT}/content?limit=20`, headers: client },
    W2: { url: `${url}/api/v1${PROJECT}/content/${id}/resolved`, headers: client },
    W3: { url: `${url}/graphql`, method: 'POST', headers: { ...client, 'content-type': 'application/json' }, body: W3 },
    admin: { url: `${url}/app/v1${PROJECT}/content?limit=20`, headers: { authorization: `Bearer ${token}` } },
  }[name];
}

/** The embedder worker indexes the seeded entries for a while after seeding: wait, so it doesn't share the load's CPU. */
async function embeddingsSettled(url) {
  const client = new pgLib.Client({ connectionString: url });
  await client.connect();
  try {
    for (let i = 0; i < 240; i++) {
      const { rows } = await client.query('select count(*)::int as n from content_embedding e join content c on c.id = e.content_id where e.source_updated_at >= c.updated_at');
      if (rows[0].n >= 20) return;
      await new Promise((r) => setTimeout(r, 500));
    }
  } finally {
    await client.end();
  }
}

const run = (options) => autocannon({ connections: 50, duration: SECONDS, ...options });
const pg = await createDatabase();
const dataDir = mkdtempSync(join(tmpdir(), 'cp-bench-miss-'));
const baseline = await startBaseline();
const service = await start({ DATA_DIR: dataDir, DATABASE_URL: pg.url, CACHE: 'off' });
try {
  const seeded = await seed(service.url);
  await embeddingsSettled(pg.url);
  if (process.env.DUMP) for (const name of SCENARIOS) {
    const o = scenario(name, service.url, seeded);
    const res = await fetch(o.url, { method: o.method ?? 'GET', headers: o.headers, body: o.body });
    console.log(name, res.status, (await res.text()).slice(0, Number(process.env.DUMP)));
  }
  for (let pass = 1; pass <= PASSES; pass++) {
    const base = await run({ url: baseline.url });
    for (const name of SCENARIOS) {
      const cpuBefore = service.cpu();
      const r = await run(scenario(name, service.url, seeded));
      const cpuMs = ((service.cpu() - cpuBefore) * 1000) / r.requests.total;
      const failed = r.non2xx + r.errors + r.timeouts;
      console.log(`${name} pass ${pass}: ${r.requests.average.toFixed(0)} req/s (${r.requests.total} requests${failed ? `, ${failed} failed` : ''}), baseline ${base.requests.average.toFixed(0)}, ratio ${(r.requests.average / base.requests.average).toFixed(4)}, gateway CPU ${cpuMs.toFixed(2)} ms/request`);
    }
  }
} finally {
  await service.stop();
  await baseline.stop();
  await pg.drop();
  rmSync(dataDir, { recursive: true, force: true });
}
