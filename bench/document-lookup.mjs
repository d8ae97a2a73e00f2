// A client read that finds an entry by a property of its document (`content.slug`) among 100,000 published entries of
// one type, as a ratio of its time to a read of one entry by id, both misses (CACHE=off), in the same run; a node:http
// baseline for scale. `node bench/document-lookup.mjs` after `npm run build` (BENCH_SECONDS, BENCH_PASSES, ENTRIES).
import autocannon from 'autocannon';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { PROJECT, startReadGateway } from './client-reads-lib.mjs';
import { adminCaller, copyEntry, createDatabase, startBaseline } from './lib.mjs';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const PASSES = Number(process.env.BENCH_PASSES ?? 2);
const ENTRIES = Number(process.env.ENTRIES ?? 100_000);

const run = (options) => autocannon({ connections: 20, duration: SECONDS, ...options });
const database = await createDatabase();
const dataDir = mkdtempSync(join(tmpdir(), 'cp-bench-lookup-'));
const baseline = await startBaseline();
const service = await startReadGateway({ DATA_DIR: dataDir, DATABASE_URL: database.url, CACHE: 'off' });
try {
  const call = await adminCaller(service.url);
  const schema = { type: 'object', properties: { slug: { type: 'string' }, body: { type: 'string' } } };
  const type = await call('POST', '/content-types', { name: 'Page', schema });
  await call('POST', `/content-types/${type.id}/publish`);
  const first = await call('POST', '/content', { typeId: type.id, name: 'Page 0', content: { slug: 'page-0' } });
  await call('POST', `/content/${first.id}/publish`);
  // The other entries are copies of the first, written in SQL: its row and version with a new id and slug each. The
  // projection's trigger fills `published_content` at commit, as for a publish through the API.
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  const seconds = await copyEntry(client, first.id, ENTRIES, [
    [
      'content',
      'id',
      { id: 's.id', name: `'Page ' || s.i`, content: `jsonb_set(t.content, '{slug}', to_jsonb('page-' || s.i))` },
    ],
    [
      'content_version',
      'content_id',
      {
        id: 'gen_random_uuid()::text',
        content_id: 's.id',
        content: `jsonb_set(jsonb_set(t.content, '{content,slug}', to_jsonb('page-' || s.i)), '{name}', to_jsonb('Page ' || s.i))`,
      },
    ],
  ]);
  const { rows } = await client.query(`select count(*)::int as n from published_content where type_id = $1`, [type.id]);
  await client.end();
  console.log(`seeded ${rows[0].n} published entries of one type in ${seconds.toFixed(1)} s`);

  const { key } = await call('POST', '/api-keys', { name: 'bench' });
  const headers = { 'x-api-key': key };
  const api = `${service.url}/api/v1${PROJECT}/content`;
  const probe = Math.floor(ENTRIES / 2);
  const bySlug = { url: `${api}?typeId=${type.id}&content.slug=page-${probe}&limit=1`, headers };
  const check = await (await fetch(bySlug.url, { headers })).json();
  if (check.data?.[0]?.name !== `Page ${probe}`) throw new Error(`lookup answered ${JSON.stringify(check)}`);
  const byId = { url: `${api}/${check.data[0].id}/resolved`, headers };
  const one = await fetch(byId.url, { headers });
  if (one.status !== 200) throw new Error(`read by id answered ${one.status} ${await one.text()}`);

  const rows_ = [];
  for (let pass = 1; pass <= PASSES; pass++) {
    const base = await run({ url: baseline.url });
    const id = await run(byId);
    const slug = await run(bySlug);
    const failed = (r) => r.non2xx + r.errors + r.timeouts;
    if (failed(id) || failed(slug)) throw new Error(`failures: by id ${failed(id)}, by slug ${failed(slug)}`);
    rows_.push({ pass, base: base.requests.average, id: id.requests.average, slug: slug.requests.average });
  }
  console.log(`\n| pass | node:http req/s | by id req/s | by content.slug req/s | lookup time ÷ read by id |`);
  console.log(`|---|---|---|---|---|`);
  for (const r of rows_)
    console.log(
      `| ${r.pass} | ${r.base.toFixed(0)} | ${r.id.toFixed(0)} (${(r.id / r.base).toFixed(3)}) | ${r.slug.toFixed(0)} (${(r.slug / r.base).toFixed(3)}) | ${(r.id / r.slug).toFixed(2)}× |`,
    );
} finally {
  await service.stop();
  await baseline.stop();
  await database.drop();
  rmSync(dataDir, { recursive: true, force: true });
}
