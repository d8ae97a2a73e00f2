// Issue 12 benchmark: client reads (W1 list, W2 resolved entry, W3 key-holder GraphQL) cache hit vs miss, admin list,
// on PostgreSQL and on the embedded database, as ratios to a node:http baseline; plus idle RSS and cold start.
// Standalone: `node bench/client-reads.mjs` after `npm run build` (BENCH_SECONDS, BENCH_PASSES, BENCH_DATABASES=postgres,embedded;
// BENCH_CACHES=on,off and BENCH_ONLY=W1,W2,W3,admin narrow it; BENCH_PROFILE=<dir> writes the service's CPU profiles there).
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADMIN, JWT_SECRET, ROOT, createDatabase, freePort, startBaseline } from './lib.mjs';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const PASSES = Number(process.env.BENCH_PASSES ?? 2);
const CONNECTIONS = 50;
const DATABASES = (process.env.BENCH_DATABASES ?? 'postgres,embedded').split(',');
const PROJECT = '/organizations/default/projects/default';
const ENTRIES = 20;
const CACHES = (process.env.BENCH_CACHES ?? 'on,off').split(',');
const ONLY = process.env.BENCH_ONLY?.split(',');
const PROFILE = process.env.BENCH_PROFILE;

/** Starts the gateway; resolves once `/health` answers 200, with the time since spawn (cold start). */
async function start(env) {
  const port = await freePort();
  const began = performance.now();
  const child = spawn(process.execPath, [...(PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE}`] : []), join(ROOT, 'apps/gateway/dist/main.js')], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH, NODE_ENV: 'production', LOG_LEVEL: 'warn', PORT: String(port), ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password, JWT_SECRET, RATE_LIMIT_PER_MINUTE: '100000000', RATE_LIMIT_PER_HOUR: '100000000',
      // The embeddings indexer would load its model and embed the seeded entries while the first scenario runs.
      EMBEDDINGS: 'off', ...env,
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
    const ok = await fetch(`${url}/health`).then((r) => r.status === 200, () => false);
    if (ok) break;
    await new Promise((r) => setTimeout(r, 25));
  }
  const coldStartMs = performance.now() - began;
  return {
    url,
    coldStartMs,
    rssMb: () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))[1]) / 1024,
    stop: () => new Promise((r) => (exited ? r() : (child.once('exit', r), child.kill('SIGTERM')))),
  };
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

/** A content type, 20 published entries of about 2.5 KB each, an API key. */
async function seed(url) {
  const { token } = await json(url, '/app/v1/auth/login', { method: 'POST', body: ADMIN });
  const app = `/app/v1${PROJECT}`;
  const schema = { type: 'object', properties: { title: { type: 'string' }, body: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } } };
  const type = await json(url, `${app}/content-types`, { method: 'POST', token, body: { name: 'Article', schema } });
  await json(url, `${app}/content-types/${type.id}/publish`, { method: 'POST', token });
  const ids = [];
  for (let i = 0; i < ENTRIES; i++) {
    const content = { title: `Article ${i}`, body: `Paragraph ${i}. `.repeat(180).slice(0, 2300), tags: ['news', `t${i % 5}`] };
    const entry = await json(url, `${app}/content`, { method: 'POST', token, body: { typeId: type.id, name: `Article ${i}`, content } });
    await json(url, `${app}/content/${entry.id}/publish`, { method: 'POST', token });
    ids.push(entry.id);
  }
  const { key } = await json(url, `${app}/api-keys`, { method: 'POST', token, body: { name: 'bench' } });
  return { token, key, id: ids[0] };
}

async function load(name, options) {
  const result = await autocannon({ connections: CONNECTIONS, duration: SECONDS, ...options });
  // Reported, not thrown: on a machine shared with other work a scenario may time out without the service failing.
  const failed = result.non2xx + result.errors + result.timeouts;
  return { name: failed > 0 ? `${name} (${failed} failed or timed out)` : name, rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 };
}

const W3 = JSON.stringify({ query: `{ contents(organizationId: "default", projectId: "default", limit: 20) { data { id name version content createdAt updatedAt } } }` });

function workloads(url, { key, token, id }) {
  const client = { 'x-api-key': key };
  return [
    ['W1 GET /api/v1/…/content?limit=20', { url: `${url}/api/v1${PROJECT}/content?limit=20`, headers: client }],
    ['W2 GET /api/v1/…/content/{id}/resolved', { url: `${url}/api/v1${PROJECT}/content/${id}/resolved`, headers: client }],
    ['W3 GraphQL contents(limit: 20), API key', { url: `${url}/graphql`, method: 'POST', headers: { ...client, 'content-type': 'application/json' }, body: W3 }],
    ['admin GET /app/v1/…/content?limit=20 (JWT)', { url: `${url}/app/v1${PROJECT}/content?limit=20`, headers: { authorization: `Bearer ${token}` } }],
  ];
}

const baseline = await startBaseline();
const lines = [`### Client reads (bench/client-reads.mjs), ${CONNECTIONS} connections, ${SECONDS} s per scenario, ${PASSES} passes, ${new Date().toISOString()}`, ''];
try {
  for (const database of DATABASES) {
    const pg = database === 'postgres' ? await createDatabase() : undefined;
    const dataDir = mkdtempSync(join(tmpdir(), 'cp-bench-reads-'));
    const env = { DATA_DIR: dataDir, ...(pg ? { DATABASE_URL: pg.url } : {}) };
    try {
      const rows = [];
      const facts = {};
      for (const cache of CACHES) {
        const service = await start({ ...env, CACHE: cache });
        try {
          const seeded = facts.seeded ?? (facts.seeded = await seed(service.url));
          await new Promise((r) => setTimeout(r, 2000));
          facts[`rss_${cache}`] = service.rssMb();
          facts[`cold_${cache}`] = service.coldStartMs;
          for (let pass = 1; pass <= PASSES; pass++) {
            const base = await load('node:http baseline', { url: baseline.url });
            for (const [name, options] of workloads(service.url, seeded)) {
              if ((cache === 'off' || !name.startsWith('admin')) && (!ONLY || ONLY.includes(name.split(' ')[0]))) {
                const r = await load(name, options);
                rows.push({ ...r, name: `${r.name} — ${name.startsWith('admin') ? 'no cache' : cache === 'on' ? 'hit' : 'miss (CACHE=off)'}`, pass, ratio: r.rps / base.rps, base: base.rps });
              }
            }
          }
          facts[`rss_after_${cache}`] = service.rssMb();
        } finally {
          await service.stop();
        }
      }
      lines.push(`#### ${database === 'postgres' ? 'PostgreSQL' : 'embedded (PGlite)'}`, '');
      lines.push('| scenario | pass | req/s | p50 ms | p99 ms | baseline req/s | ratio to baseline |', '|---|---:|---:|---:|---:|---:|---:|');
      for (const r of rows) lines.push(`| ${r.name} | ${r.pass} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.base.toFixed(0)} | ${r.ratio.toFixed(4)} |`);
      lines.push('');
      const mb = (v) => (v === undefined ? '–' : `${v.toFixed(0)} MB`);
      const ms = (v) => (v === undefined ? '–' : `${v.toFixed(0)} ms`);
      lines.push(`Cold start to healthy (spawn → first 200 on /health): ${ms(facts.cold_on)} (cache on), ${ms(facts.cold_off)} (cache off; the second start when both run).`);
      lines.push(`RSS idle after start (+ seed on the first): ${mb(facts.rss_on)} (cache on), ${mb(facts.rss_off)} (cache off); after the loads: ${mb(facts.rss_after_on)} / ${mb(facts.rss_after_off)}.`, '');
    } finally {
      await pg?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
} finally {
  await baseline.stop();
}
console.log(lines.join('\n'));
