// W4, the write path against the database's own speed: update+publish cycles beside pgbench TPC-B, then an audit that
// every acknowledged publish left exactly one version row and one `content.published` event.
// `node bench/writes.mjs` — WRITES_SECONDS (15), WRITES_WORKERS (20), PGBENCH_SCALE (20); CPU_PROF=dir profiles the gateway.
import { execFileSync } from 'node:child_process';
import pg from 'pg';
import { createDatabase, login, startGateway } from './lib.mjs';

const SECONDS = Number(process.env.WRITES_SECONDS ?? 15);
const WORKERS = Number(process.env.WRITES_WORKERS ?? 20);
const SCALE = Number(process.env.PGBENCH_SCALE ?? 20);
const PROJECT = '/organizations/default/projects/default';

/** pgbench TPC-B (its default script) on its own database: `-c WORKERS -j 2 -T seconds`, tps without connection time. */
function pgbench(url, seconds) {
  const out = execFileSync('pgbench', ['-c', String(WORKERS), '-j', '2', '-T', String(seconds), '-n', url], { encoding: 'utf8' });
  const tps = /tps = ([\d.]+)/.exec(out);
  if (!tps) throw new Error(`pgbench printed no tps:\n${out}`);
  return Number(tps[1]);
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

const pgbenchDb = await createDatabase();
const db = await createDatabase();
const profile = process.env.CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.CPU_PROF}`] : [];
const gateway = await startGateway({ DATABASE_URL: db.url }, profile);
let failed = false;
try {
  execFileSync('pgbench', ['-i', '-q', '-s', String(SCALE), pgbenchDb.url], { stdio: 'ignore' });
  // pgbench before and after W4: the mean is the baseline, so a neighbour's load during either half shows as spread.
  // (Before seeding: the client's idle keep-alive sockets would meanwhile be closed by the server under it.)
  const tpsBefore = pgbench(pgbenchDb.url, Math.ceil(SECONDS / 2));
  const token = await login(gateway.url);
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
  const call = async (method, path, body) => {
    const res = await fetch(`${gateway.url}/app/v1${PROJECT}${path}`, { method, headers, body: body && JSON.stringify(body) });
    const json = await res.json();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  const schema = { type: 'object', properties: { title: { type: 'string' }, body: { type: 'string' }, n: { type: 'integer' } } };
  const type = await call('POST', '/content-types', { name: 'Writes', schema });
  await call('POST', `/content-types/${type.id}/publish`, {});
  const entries = [];
  for (let w = 0; w < WORKERS; w++) {
    entries.push((await call('POST', '/content', { typeId: type.id, name: `Writer ${w}`, content: { title: 'start' } })).id);
  }

  const acked = new Map(entries.map((id) => [id, []]));
  const publishMs = [];
  let cycles = 0;
  const until = Date.now() + SECONDS * 1000;
  const started = performance.now();
  await Promise.all(
    entries.map(async (id, w) => {
      for (let n = 0; Date.now() < until; n++) {
        await call('PUT', `/content/${id}`, { content: { title: `Writer ${w} cycle ${n}`, body: 'x'.repeat(500), n } });
        const t = performance.now();
        const published = await call('POST', `/content/${id}/publish`, {});
        publishMs.push(performance.now() - t);
        acked.get(id).push(published.version);
        cycles++;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;

  const tpsAfter = pgbench(pgbenchDb.url, Math.ceil(SECONDS / 2));
  const tps = (tpsBefore + tpsAfter) / 2;

  // The audit: each entry's acknowledged versions are 1..n in order, with one version row and one event each.
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  const problems = [];
  for (const [id, versions] of acked) {
    const expected = versions.map((_, i) => i + 1);
    if (JSON.stringify(versions) !== JSON.stringify(expected)) problems.push(`${id}: acknowledged versions ${versions.join(',')}`);
    const rows = (await client.query('select version from content_version where content_id = $1 order by version', [id])).rows;
    const events = (
      await client.query(`select version from event where resource_id = $1 and type = 'content.published' order by version`, [id])
    ).rows;
    if (JSON.stringify(rows.map((r) => r.version)) !== JSON.stringify(expected)) problems.push(`${id}: version rows ${rows.map((r) => r.version)}`);
    if (JSON.stringify(events.map((r) => r.version)) !== JSON.stringify(expected)) problems.push(`${id}: events ${events.map((r) => r.version)}`);
  }
  await client.end();

  publishMs.sort((a, b) => a - b);
  const rate = cycles / elapsed;
  console.log(
    [
      `### W4 publish throughput vs pgbench TPC-B (${new Date().toISOString()})`,
      '',
      `${WORKERS} workers, ${SECONDS} s, pgbench -c ${WORKERS} -j 2 scale ${SCALE} before and after (${Math.ceil(SECONDS / 2)} s each)`,
      '',
      '| pgbench tps (before / after) | cycles/s | publish p50 ms | publish p99 ms | cycles/s ÷ tps |',
      '|---:|---:|---:|---:|---:|',
      `| ${tps.toFixed(0)} (${tpsBefore.toFixed(0)} / ${tpsAfter.toFixed(0)}) | ${rate.toFixed(1)} | ` +
        `${percentile(publishMs, 50).toFixed(0)} | ${percentile(publishMs, 99).toFixed(0)} | ${(rate / tps).toFixed(3)} |`,
      '',
      `audit: ${cycles} acknowledged publishes; ${problems.length === 0 ? 'each left exactly one version and one content.published event' : 'FAILED'}`,
    ].join('\n'),
  );
  if (problems.length > 0) {
    failed = true;
    console.error(problems.slice(0, 20).join('\n'));
  }
} finally {
  await gateway.stop();
  await db.drop();
  await pgbenchDb.drop();
}
if (failed) process.exit(1);
