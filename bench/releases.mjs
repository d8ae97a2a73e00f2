// Releases and bulk actions against single publishes, in the same run: publishing a release of 100 entries in one
// request (target: at most 10x one entry's publish) and a bulk publish of 100 ids (target: at least 3x the throughput
// of 100 single publishes sent one at a time by one client). `node bench/releases.mjs` after `npm run build`
// (BENCH_ROUNDS, RELEASE_SIZE).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { PROJECT, startReadGateway } from './client-reads-lib.mjs';
import { copyEntry, createDatabase, login } from './lib.mjs';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SIZE = Number(process.env.RELEASE_SIZE ?? 100);

const database = await createDatabase();
const dataDir = mkdtempSync(join(tmpdir(), 'cp-bench-releases-'));
const service = await startReadGateway({ DATA_DIR: dataDir, DATABASE_URL: database.url, CACHE: 'off' });
try {
  const token = await login(service.url);
  const call = async (method, path, body, expectStatus = 200) => {
    const res = await fetch(`${service.url}/app/v1${PROJECT}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body && JSON.stringify(body),
    });
    const answer = await res.json();
    if (res.status !== expectStatus) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(answer)}`);
    return answer;
  };
  const schema = { type: 'object', properties: { title: { type: 'string' }, body: { type: 'string' } } };
  const type = await call('POST', '/content-types', { name: 'Article', schema }, 201);
  await call('POST', `/content-types/${type.id}/publish`);
  const content = { title: 'A campaign page', body: 'Some words of a page. '.repeat(40) };
  const first = await call('POST', '/content', { typeId: type.id, name: 'Draft 0', content }, 201);

  // Drafts for every round: 100 for singles, a release and a bulk publish each, copied in SQL from the first.
  const needed = ROUNDS * SIZE * 3 + 1;
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  const seconds = await copyEntry(client, first.id, needed, [
    ['content', 'id', { id: 's.id', name: `'Draft ' || s.i` }],
  ]);
  const { rows } = await client.query(`select id from content where status = 'draft' order by name`);
  await client.end();
  const drafts = rows.map((r) => r.id);
  console.log(`seeded ${needed} drafts in ${seconds.toFixed(1)} s`);
  const take = (n) => drafts.splice(0, n);

  // Warm-up: the first publishes and releases pay for compiled code paths and cold caches.
  for (const id of take(10)) await call('POST', `/content/${id}/publish`);
  const warm = await call('POST', '/releases', { name: 'warm-up', items: [] }, 201);
  await call('POST', `/releases/${warm.id}/publish`);

  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const timed = async (work) => {
    const start = performance.now();
    await work();
    return performance.now() - start;
  };
  const single = [];
  const singles100 = [];
  const releases = [];
  const bulks = [];
  for (let round = 0; round < ROUNDS; round++) {
    const ids = take(SIZE);
    const each = [];
    singles100.push(
      await timed(async () => {
        for (const id of ids) each.push(await timed(() => call('POST', `/content/${id}/publish`)));
      }),
    );
    single.push(median(each));
    const items = take(SIZE).map((id) => ({ resourceType: 'content', resourceId: id, action: 'publish' }));
    const release = await call('POST', '/releases', { name: `round ${round}`, items }, 201);
    releases.push(await timed(() => call('POST', `/releases/${release.id}/publish`)));
    const bulkIds = take(SIZE);
    bulks.push(
      await timed(async () => {
        const { results } = await call('POST', '/content/bulk', { action: 'publish', ids: bulkIds });
        if (results.some((r) => r.status !== 200)) throw new Error(`bulk refused: ${JSON.stringify(results)}`);
      }),
    );
  }
  const one = median(single);
  const rel = median(releases);
  const hundred = median(singles100);
  const bulk = median(bulks);
  console.log(`\n${ROUNDS} rounds, medians (ms); ${SIZE} entries per release, bulk and sequence of single publishes\n`);
  console.log('| workload | ms | ratio | target |');
  console.log('|---|---:|---:|---|');
  console.log(`| publish one entry (median of ${SIZE} one at a time) | ${one.toFixed(1)} | 1 | baseline |`);
  console.log(
    `| publish a release of ${SIZE} entries | ${rel.toFixed(1)} | ${(rel / one).toFixed(1)}x one entry | <= 10x |`,
  );
  console.log(`| ${SIZE} single publishes, one client, one at a time | ${hundred.toFixed(1)} | 1 | baseline |`);
  console.log(
    `| bulk publish of ${SIZE} ids | ${bulk.toFixed(1)} | ${(hundred / bulk).toFixed(1)}x the throughput | >= 3x |`,
  );
} finally {
  await service.stop();
  await database.drop();
  rmSync(dataDir, { recursive: true, force: true });
}
