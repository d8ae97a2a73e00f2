// Typed GraphQL per project: the schema build for a project with 50 content types (in process, and end to end from a
// publish until every replica's SDL has the new type, with requests served throughout), and `tCollection(limit: 20)`
// with one level of references, as hits and as misses, against bare node:http in the same run.
// `node bench/typed-graphql.mjs` after `npm run build` (BENCH_SECONDS, BENCH_REPEATS).
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { printSchema } from 'graphql';
import { PROJECT, startReadGateway } from './client-reads-lib.mjs';
import { adminCaller, createDatabase, load, report, ROOT, startBaseline } from './lib.mjs';

const TYPES = 50;
const REPEATS = Number(process.env.BENCH_REPEATS ?? 20);
const require = createRequire(import.meta.url);
const { buildTypedSchema } = require(join(ROOT, 'subgraphs/content/dist/typed/typed-schema.js'));

/** The schema of type `i`: ten properties of every kind, references to earlier types among them. */
const schemaOf = (i, ids) => ({
  type: 'object',
  properties: {
    title: { type: 'string' },
    slug: { type: 'string' },
    rating: { type: 'integer' },
    price: { type: 'number' },
    featured: { type: 'boolean' },
    keywords: { type: 'array', items: { type: 'string' } },
    hero: { reference: { to: 'asset' } },
    ...(i > 0 ? { parent: { reference: { typeIds: [ids[i - 1]] } } } : {}),
    ...(i > 1 ? { related: { type: 'array', items: { reference: { typeIds: [ids[i - 1], ids[i - 2]] } } } } : {}),
    seo: { type: 'object', properties: { description: { type: 'string' } } },
  },
});

const median = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];

// 1. The build alone: types → schema → SDL, as a replica does on a type's event.
const ids = Array.from({ length: TYPES }, (_, i) => `type-${i}`);
const types = ids.map((id, i) => ({ id, name: `Type ${i}`, version: 1, schema: schemaOf(i, ids) }));
const builds = [];
const prints = [];
for (let i = 0; i < REPEATS + 3; i++) {
  const began = performance.now();
  const { schema } = buildTypedSchema(types);
  const built = performance.now();
  printSchema(schema);
  if (i < 3) continue;
  builds.push(built - began);
  prints.push(performance.now() - built);
}
console.log(
  `${TYPES} types, in process: build median ${median(builds).toFixed(1)} ms (what a rebuild costs before it serves); ` +
    `printing the SDL median ${median(prints).toFixed(1)} ms (once, on the first schema.graphql request)`,
);

// 2. The service: 50 published types, authors and articles, a key and a preview key.
const database = await createDatabase();
const dataDir = mkdtempSync(join(tmpdir(), 'cp-bench-typed-'));
const service = await startReadGateway({ DATA_DIR: dataDir, DATABASE_URL: database.url });
const baseline = await startBaseline();
try {
  const call = await adminCaller(service.url);
  const publishType = async (name, schema) => {
    const { id } = await call('POST', '/content-types', { name, schema });
    await call('POST', `/content-types/${id}/publish`);
    return id;
  };
  const published = [];
  for (let i = 0; i < TYPES - 2; i++) published.push(await publishType(`Type ${i}`, schemaOf(i, published)));
  const author = await publishType('Author', { type: 'object', properties: { fullName: { type: 'string' } } });
  const article = await publishType('Article', {
    type: 'object',
    properties: { title: { type: 'string' }, body: { type: 'string' }, author: { reference: { typeIds: [author] } } },
  });
  const entry = async (typeId, name, content) => {
    const { id } = await call('POST', '/content', { typeId, name, content });
    await call('POST', `/content/${id}/publish`);
    return id;
  };
  for (let i = 0; i < 20; i++) {
    const by = await entry(author, `author ${i}`, { fullName: `Author ${i}` });
    await entry(article, `article ${i}`, { title: `Article ${i}`, body: 'x'.repeat(1000), author: by });
  }
  const key = (await call('POST', '/api-keys', { name: 'bench' })).key;
  const previewKey = (await call('POST', '/api-keys', { name: 'preview', scope: 'preview' })).key;
  const endpoint = `${service.url}/api/v1${PROJECT}/graphql`;
  const query = '{ articleCollection(limit: 20) { total items { sys { id } title body author { fullName } } } }';
  const get = `${endpoint}?query=${encodeURIComponent(query)}`;
  const check = await (await fetch(get, { headers: { 'x-api-key': key } })).json();
  if (check.data?.articleCollection.items.length !== 20 || !check.data.articleCollection.items[0].author)
    throw new Error(`unexpected answer: ${JSON.stringify(check).slice(0, 300)}`);

  // 3. Hits (a published key's GET, from the read cache) and misses (a preview key's POST, never cached).
  const base = await load('node:http baseline (1 KB)', { url: baseline.url });
  const hits = await load('W-typed hit: articleCollection(limit: 20) + author, GET, key', {
    url: get,
    headers: { 'x-api-key': key },
  });
  const misses = await load('W-typed miss: the same, POST, preview key', {
    url: endpoint,
    method: 'POST',
    headers: { 'x-api-key': previewKey, 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  });
  const restMisses = await load('REST list of the same 20, include=1, preview key (miss, same run)', {
    url: `${service.url}/api/v1${PROJECT}/content?typeId=${article}&limit=20&include=1`,
    headers: { 'x-api-key': previewKey },
  });
  report('Typed GraphQL: a collection of 20 with one level of references', base, [hits, misses, restMisses]);

  // 4. A publish while misses run: from the publish's answer until the SDL has the new type (the event reached the
  // replica, the types were read and the schema of 51 types built), the load failing on any refused request.
  const sdl = () => fetch(`${endpoint}/schema.graphql`, { headers: { 'x-api-key': key } }).then((r) => r.text());
  const rebuilds = [];
  const during = load('misses during the rebuilds', {
    url: endpoint,
    method: 'POST',
    headers: { 'x-api-key': previewKey, 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  });
  for (let i = 0; i < 5; i++) {
    const { id } = await call('POST', '/content-types', { name: `Late ${i}`, schema: schemaOf(1, published) });
    await call('POST', `/content-types/${id}/publish`);
    const began = performance.now();
    while (!(await sdl()).includes(`type Late${i} implements Entry`)) {
      if (performance.now() - began > 10_000) throw new Error(`Late ${i} not in the SDL after 10 s`);
      await new Promise((r) => setTimeout(r, 5));
    }
    rebuilds.push(performance.now() - began);
  }
  const served = await during;
  console.log(
    `publish → SDL with the new type (${TYPES + 1}–${TYPES + 5} types): ${rebuilds.map((ms) => ms.toFixed(0)).join(', ')} ms; ` +
      `misses meanwhile: ${served.rps.toFixed(0)} req/s, p99 ${served.p99} ms, none refused`,
  );
} finally {
  await service.stop();
  await baseline.stop();
  await database.drop();
  rmSync(dataDir, { recursive: true, force: true });
}
