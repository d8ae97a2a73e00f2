// W4, the write path against the database's own speed: update+publish cycles beside pgbench TPC-B, then an audit that
// every acknowledged publish left exactly one version row and one `content.published` event.
// `node bench/writes.mjs` — WRITES_SECONDS (15), WRITES_WARMUP (0 s of unmeasured cycles first), WRITES_WORKERS (20),
// PGBENCH_SCALE (20), EMBEDDINGS (service default);
// BASE_ROOT=<checkout> also runs W4 on that checkout's build in the same run (first; BASE_LAST=1: second);
// WRITES_FLOOR=0 leaves out the two floors (the same SQL behind bare node:http, and from pgbench with no service);
// CPU_PROF=<dir> profiles the servers.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import {
  cpuSecondsOf,
  createDatabase,
  databaseCpuSeconds,
  freePort,
  login,
  ROOT,
  spawnNode,
  startGateway,
} from './lib.mjs';

const SECONDS = Number(process.env.WRITES_SECONDS ?? 15);
// Cycles run before the measured ones (not counted): without them, the figures include V8's optimising compiler warming up.
const WARMUP = Number(process.env.WRITES_WARMUP ?? 0);
const WORKERS = Number(process.env.WRITES_WORKERS ?? 20);
const SCALE = Number(process.env.PGBENCH_SCALE ?? 20);
const PROJECT = '/organizations/default/projects/default';
// The floors run last unless WRITES_FLOOR=0: the same SQL through bare node:http, then from pgbench with no service.
const FLOOR = process.env.WRITES_FLOOR !== '0';

/**
 * pgbench `-c WORKERS -j 2` for `seconds` (TPC-B, its default script, unless `script` args are given): tps without
 * connection time, and the number of transactions.
 */
function pgbench(url, seconds, script = []) {
  const args = [...script, '-c', String(WORKERS), '-j', '2', '-T', String(seconds), '-n', url];
  const out = execFileSync('pgbench', args, { encoding: 'utf8' });
  const tps = /tps = ([\d.]+)/.exec(out);
  const transactions = /number of transactions actually processed: (\d+)/.exec(out);
  if (!tps || !transactions) throw new Error(`pgbench printed no tps:\n${out}`);
  return { tps: Number(tps[1]), transactions: Number(transactions[1]) };
}

/** CPU seconds used so far by a process and its children (the gateway's esbuild service), all threads. */
function cpuSeconds(pid) {
  try {
    const own = cpuSecondsOf(pid);
    const children = readdirSync(`/proc/${pid}/task`).flatMap((tid) =>
      readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ').filter(Boolean),
    );
    return own + children.reduce((sum, child) => sum + cpuSeconds(child), 0);
  } catch {
    return 0; // exited meanwhile
  }
}

/** No figure (pgbench reports no per-cycle latency, and is no service) as a dash. */
const fixed = (n, digits) => (Number.isNaN(n) ? '—' : n.toFixed(digits));

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/**
 * W4 on a fresh database: WORKERS loops of PUT then publish, each on its own entry; then the audit. With a `floor`,
 * the gateway only sets the database up (schema, type, entries), then the cycles run through `write-floor-server.mjs`
 * (`'node'`) or as pgbench's script `w4-cycle.pgbench` (`'database'`: no service at all).
 */
async function w4(root, floor) {
  const db = await createDatabase();
  const env = { DATABASE_URL: db.url, ...(process.env.EMBEDDINGS ? { EMBEDDINGS: process.env.EMBEDDINGS } : {}) };
  const flags = process.env.CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.CPU_PROF}`] : [];
  let server = await startGateway(env, { root, flags });
  try {
    const token = await login(server.url);
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
    const call = async (method, path, body) => {
      const url = `${server.url}/app/v1${PROJECT}${path}`;
      const res = await fetch(url, { method, headers, body: body && JSON.stringify(body) });
      const json = await res.json();
      if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    };
    const properties = { title: { type: 'string' }, body: { type: 'string' }, n: { type: 'integer' } };
    const schema = { type: 'object', properties };
    const type = await call('POST', '/content-types', { name: 'Writes', schema });
    await call('POST', `/content-types/${type.id}/publish`, {});
    const entries = [];
    for (let w = 0; w < WORKERS; w++) {
      const input = { typeId: type.id, name: `Writer ${w}`, content: { title: 'start' } };
      const entry = await call('POST', '/content', input);
      entries.push(entry.id);
    }
    if (floor) {
      await server.stop();
      server = undefined;
    }
    if (floor === 'database') return await databaseOnly(db.url, entries);
    if (floor === 'node') {
      const port = String(await freePort());
      server = await spawnNode('bench/write-floor-server.mjs', { DATABASE_URL: db.url, PORT: port }, /"url"/, {
        flags,
      });
    }

    const acked = new Map(entries.map((id) => [id, []]));
    const publishMs = [];
    let cycles = 0;
    // Every publish is acknowledged and audited, warm-up ones included; only the measured ones are counted.
    const loop = (seconds, measured) => {
      const until = Date.now() + seconds * 1000;
      return Promise.all(
        entries.map(async (id, w) => {
          for (let n = acked.get(id).length; Date.now() < until; n++) {
            const content = { title: `Writer ${w} cycle ${n}`, body: 'x'.repeat(500), n };
            await call('PUT', `/content/${id}`, { content });
            const t = performance.now();
            const published = await call('POST', `/content/${id}/publish`, {});
            acked.get(id).push(published.version);
            if (!measured) continue;
            publishMs.push(performance.now() - t);
            cycles++;
          }
        }),
      );
    };
    if (WARMUP > 0) await loop(WARMUP, false);
    const started = performance.now();
    const cpuBefore = cpuSeconds(server.pid);
    const databaseBefore = databaseCpuSeconds();
    await loop(SECONDS, true);
    const rate = cycles / ((performance.now() - started) / 1000);
    const cpuMs = ((cpuSeconds(server.pid) - cpuBefore) * 1000) / cycles;
    const databaseMs = ((databaseCpuSeconds() - databaseBefore) * 1000) / cycles;
    publishMs.sort((a, b) => a - b);
    const { problems, audited } = await audit(db.url, acked);
    return {
      rate,
      cycles,
      audited,
      cpuMs,
      databaseMs,
      p50: percentile(publishMs, 50),
      p99: percentile(publishMs, 99),
      problems,
    };
  } finally {
    await server?.stop();
    await db.drop();
  }
}

/** The cycles as pgbench's script on the set-up database; every version it committed is audited like an answer. */
async function databaseOnly(url, entries) {
  const databaseBefore = databaseCpuSeconds();
  const { tps, transactions: cycles } = pgbench(url, SECONDS, [
    '-M',
    'prepared',
    '-f',
    join(ROOT, 'bench/w4-cycle.pgbench'),
  ]);
  const databaseMs = ((databaseCpuSeconds() - databaseBefore) * 1000) / cycles;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const { rows } = await client.query('select id, last_published_version from content where id = any($1)', [entries]);
  await client.end();
  const acked = new Map(
    rows.map((r) => [r.id, Array.from({ length: r.last_published_version ?? 0 }, (_, i) => i + 1)]),
  );
  const { problems, audited } = await audit(url, acked);
  return { rate: tps, cycles, audited, cpuMs: NaN, databaseMs, p50: NaN, p99: NaN, problems };
}

/** Each entry's acknowledged versions are 1..n in order, with exactly one version row and one event each; and how many. */
async function audit(url, acked) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const problems = [];
  const list = (rows) => rows.map((r) => r.version).join(',');
  for (const [id, versions] of acked) {
    const expected = versions.map((_, i) => i + 1).join(',');
    const { rows } = await client.query('select version from content_version where content_id = $1 order by version', [
      id,
    ]);
    const events = await client.query(
      `select version from event where resource_id = $1 and type = 'content.published' order by version`,
      [id],
    );
    if (versions.join(',') !== expected) problems.push(`${id}: acknowledged versions ${versions.join(',')}`);
    if (list(rows) !== expected) problems.push(`${id}: version rows ${list(rows)}, acknowledged ${expected}`);
    if (list(events.rows) !== expected) {
      problems.push(`${id}: content.published events ${list(events.rows)}, acknowledged ${expected}`);
    }
  }
  await client.end();
  return { problems, audited: [...acked.values()].reduce((sum, versions) => sum + versions.length, 0) };
}

/**
 * `CHECKPOINT` (a superuser's, or `pg_checkpoint`'s): the writes of pgbench's initialisation and of earlier runs go
 * back to disk before a run, not during it. A role that may not is warned about, and the runs go on without it.
 */
async function checkpoint(url) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('checkpoint');
  } catch (err) {
    console.warn(`no CHECKPOINT before the run (${err.message}): the first run may pay for earlier writes`);
  } finally {
    await client.end();
  }
}

const pgbenchDb = await createDatabase();
const runs = [];
let tps;
try {
  execFileSync('pgbench', ['-i', '-q', '-s', String(SCALE), pgbenchDb.url], { stdio: 'ignore' });
  // pgbench before and after W4, the mean being the baseline: a neighbour's load during either half shows as spread.
  const half = Math.ceil(SECONDS / 2);
  const before = pgbench(pgbenchDb.url, half).tps;
  // BASE_LAST=1 swaps the order: whichever runs second meets a warmer (or busier) database server.
  const builds = [{ name: 'this build', root: ROOT }];
  const base = process.env.BASE_ROOT && { name: `before (${process.env.BASE_ROOT})`, root: process.env.BASE_ROOT };
  if (base && process.env.BASE_LAST === '1') builds.push(base);
  else if (base) builds.unshift(base);
  // Each run starts after a checkpoint: without it, the first run met the one that follows pgbench's initialisation
  // and measured up to 30 % below an identical second one (within 6 % with it).
  const measured = [
    ...builds,
    ...(FLOOR
      ? [
          { name: 'floor: the same SQL behind bare node:http', root: ROOT, floor: 'node' },
          { name: 'floor: the same SQL from pgbench, no service', root: ROOT, floor: 'database' },
        ]
      : []),
  ];
  for (const { name, root, floor } of measured) {
    await checkpoint(pgbenchDb.url);
    runs.push({ name, ...(await w4(root, floor)) });
  }
  const after = pgbench(pgbenchDb.url, half).tps;
  tps = { mean: (before + after) / 2, before, after, half };
} finally {
  await pgbenchDb.drop();
}

console.log(
  [
    `### W4 publish throughput vs pgbench TPC-B (${new Date().toISOString()})`,
    '',
    `${WORKERS} workers × (PUT + publish) for ${SECONDS} s${WARMUP > 0 ? ` after ${WARMUP} s unmeasured` : ''}; pgbench -c ${WORKERS} -j 2, scale ${SCALE}, ` +
      `${tps.half} s before and after: ${tps.before.toFixed(0)} / ${tps.after.toFixed(0)} tps, ` +
      `mean ${tps.mean.toFixed(0)}`,
    '',
    '| build | cycles/s | publish p50 ms | publish p99 ms | cycles/s ÷ pgbench tps | service CPU ms/cycle | PostgreSQL CPU ms/cycle | audit |',
    '|---|---:|---:|---:|---:|---:|---:|---|',
    ...runs.map(
      (r) =>
        `| ${r.name} | ${r.rate.toFixed(1)} | ${fixed(r.p50, 0)} | ${fixed(r.p99, 0)} | ` +
        `${(r.rate / tps.mean).toFixed(3)} | ${fixed(r.cpuMs, 1)} | ${r.databaseMs.toFixed(1)} | ` +
        `${r.problems.length === 0 ? `${r.audited} publishes, each one version + one event` : 'FAILED'} |`,
    ),
  ].join('\n'),
);
const problems = runs.flatMap((r) => r.problems.map((p) => `${r.name}: ${p}`));
if (problems.length > 0) {
  console.error('AUDIT FAILED: acknowledged publishes without exactly one version and one event');
  console.error(problems.slice(0, 20).join('\n'));
  process.exit(1);
}
