// Deleting an entry that 10,000 others reference: refused (409 CONTENT_REFERENCED, the first 100 referrers named) by
// index lookups on the links table, never a scan of documents. Times the refusal against an admin read of the same
// entry by id, both repeated one at a time, in the same run. `node bench/reference-delete.mjs` after `npm run build`
// (REFERRERS, BENCH_REPEATS).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { PROJECT, startReadGateway } from './client-reads-lib.mjs';
import { copyEntry, createDatabase, login } from './lib.mjs';

const REFERRERS = Number(process.env.REFERRERS ?? 10_000);
const REPEATS = Number(process.env.BENCH_REPEATS ?? 200);

const database = await createDatabase();
const dataDir = mkdtempSync(join(tmpdir(), 'cp-bench-refdelete-'));
const service = await startReadGateway({ DATA_DIR: dataDir, DATABASE_URL: database.url, CACHE: 'off' });
try {
  const token = await login(service.url);
  const request = (method, path, body) =>
    fetch(`${service.url}/app/v1${PROJECT}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body && JSON.stringify(body),
    });
  const call = async (method, path, body) => {
    const res = await request(method, path, body);
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  const schema = {
    type: 'object',
    properties: { author: { type: 'string', reference: {} }, body: { type: 'string' } },
  };
  const type = await call('POST', '/content-types', { name: 'Article', schema });
  await call('POST', `/content-types/${type.id}/publish`);
  const target = await call('POST', '/content', { typeId: type.id, name: 'Author', content: { body: 'me' } });
  await call('POST', `/content/${target.id}/publish`);
  const first = await call('POST', '/content', { typeId: type.id, name: 'Article 0', content: { author: target.id } });
  await call('POST', `/content/${first.id}/publish`);
  // The other referrers are copies of the first, written in SQL: its row, its version and its working link with a new
  // id each. The projection's trigger writes their published links at commit, as a publish through the API does.
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  const seconds = await copyEntry(client, first.id, REFERRERS, [
    ['content', 'id', { id: 's.id', name: `'Article ' || s.i` }],
    ['content_version', 'content_id', { id: 'gen_random_uuid()::text', content_id: 's.id' }],
    // Working links only: the published ones are the trigger's to write.
    ['content_link', 'from_id', { from_id: 's.id' }, ` and t."scope" = 'working'`],
  ]);
  const { rows } = await client.query(
    `select scope, count(*)::int as n from content_link where target_id = $1 group by scope order by scope`,
    [target.id],
  );
  await client.end();
  console.log(
    `seeded ${REFERRERS} referrers in ${seconds.toFixed(1)} s; links to the target: ${rows
      .map((r) => `${r.n} ${r.scope}`)
      .join(', ')}`,
  );

  /** Median and 95th percentile in ms of `REPEATS` requests, one at a time, after a tenth as many to warm up. */
  const time = async (send, expectStatus) => {
    const took = [];
    for (let i = 0; i < REPEATS + Math.ceil(REPEATS / 10); i++) {
      const start = performance.now();
      const res = await send();
      const body = await res.json();
      if (res.status !== expectStatus) throw new Error(`answered ${res.status}: ${JSON.stringify(body)}`);
      if (i >= Math.ceil(REPEATS / 10)) took.push(performance.now() - start);
    }
    took.sort((a, b) => a - b);
    return { median: took[Math.floor(took.length / 2)], p95: took[Math.floor(took.length * 0.95)] };
  };
  const refused = await request('DELETE', `/content/${target.id}`);
  const answer = await refused.json();
  if (answer.error?.code !== 'CONTENT_REFERENCED' || answer.error.details.referencedBy.length !== 100)
    throw new Error(`the delete answered ${refused.status} ${JSON.stringify(answer).slice(0, 300)}`);
  const read = await time(() => request('GET', `/content/${target.id}`), 200);
  const remove = await time(() => request('DELETE', `/content/${target.id}`), 409);
  console.log(`\n| request (${REPEATS} one at a time) | median ms | p95 ms |`);
  console.log('|---|---:|---:|');
  console.log(`| admin read of the entry by id | ${read.median.toFixed(1)} | ${read.p95.toFixed(1)} |`);
  console.log(
    `| delete refused (409, ${REFERRERS} referrers) | ${remove.median.toFixed(1)} | ${remove.p95.toFixed(1)} |`,
  );
  console.log(`\nrefusal ÷ read (median): ${(remove.median / read.median).toFixed(2)}×`);
} finally {
  await service.stop();
  await database.drop();
  rmSync(dataDir, { recursive: true, force: true });
}
