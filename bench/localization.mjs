// Localized reads against the same reads without locales, in one run: a client list of 20 read in a locale with a
// two-step fallback (de-CH → de → en), as hits and as misses; and an `eq` on a localized property among 100,000
// entries against the same `eq` on a plain property (read cache off). Prints each ratio beside its target.
// `node bench/localization.mjs` after `npm run build` (BENCH_SECONDS, ENTRIES).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { PROJECT, startReadGateway } from './client-reads-lib.mjs';
import { adminCaller, copyEntry, createDatabase, load, report, startBaseline } from './lib.mjs';

const ENTRIES = Number(process.env.ENTRIES ?? 100_000);
const LOCALES = [
  { code: 'en', default: true },
  { code: 'de', fallback: 'en' },
  { code: 'de-CH', fallback: 'de' },
];
const plainSchema = {
  type: 'object',
  properties: { title: { type: 'string' }, slug: { type: 'string' }, body: { type: 'string' } },
};
/** The same properties, localized. */
const localizedSchema = {
  type: 'object',
  properties: Object.fromEntries(
    Object.entries(plainSchema.properties).map(([k, v]) => [k, { ...v, localized: true }]),
  ),
};

const database = await createDatabase();
const dataDir = mkdtempSync(join(tmpdir(), 'cp-bench-locales-'));
const baseline = await startBaseline();
const cached = await startReadGateway({ DATA_DIR: dataDir, DATABASE_URL: database.url });
const uncached = await startReadGateway({ DATA_DIR: dataDir, DATABASE_URL: database.url, CACHE: 'off' });
const ratio = (a, b) => (a.rps / b.rps).toFixed(2);
try {
  const call = await adminCaller(cached.url);
  await call('PUT', '', { locales: LOCALES }); // the project itself
  const publishType = async (name, schema) => {
    const { id } = await call('POST', '/content-types', { name, schema });
    await call('POST', `/content-types/${id}/publish`);
    return id;
  };
  const plain = await publishType('Plain', plainSchema);
  const localized = await publishType('Localized', localizedSchema);
  const publish = async (typeId, name, content, locale = '') => {
    const { id } = await call('POST', `/content${locale}`, { typeId, name, content });
    await call('POST', `/content/${id}/publish`);
    return id;
  };
  const body = 'x'.repeat(1000);
  for (let i = 0; i < 20; i++) {
    await publish(plain, `plain ${i}`, { title: `Title ${i}`, slug: `page-${i}`, body });
    // English everywhere, German on every second entry, no Swiss German: de-CH reads walk two steps for half of them.
    const de = i % 2 === 0 ? { de: `Titel ${i}` } : {};
    await publish(
      localized,
      `localized ${i}`,
      { title: { en: `Title ${i}`, ...de }, slug: { en: `page-${i}`, de: `seite-${i}` }, body: { en: body } },
      '?locale=*',
    );
  }
  const key = (await call('POST', '/api-keys', { name: 'bench' })).key;
  const previewKey = (await call('POST', '/api-keys', { name: 'preview', scope: 'preview' })).key;
  const list = (typeId, locale = '') => `${cached.url}/api/v1${PROJECT}/content?typeId=${typeId}&limit=20${locale}`;
  const check = await (await fetch(list(localized, '&locale=de-CH'), { headers: { 'x-api-key': key } })).json();
  if (check.data?.length !== 20 || check.data[0].locale !== 'de-CH' || typeof check.data[0].content.title !== 'string')
    throw new Error(`unexpected answer: ${JSON.stringify(check).slice(0, 300)}`);

  const base = await load('node:http baseline (1 KB)', { url: baseline.url });
  const plainHit = await load('list of 20, no locales, hit', { url: list(plain), headers: { 'x-api-key': key } });
  const localHit = await load('list of 20 in de-CH (de → en), hit', {
    url: list(localized, '&locale=de-CH'),
    headers: { 'x-api-key': key },
  });
  const plainMiss = await load('list of 20, no locales, miss (preview key)', {
    url: list(plain),
    headers: { 'x-api-key': previewKey },
  });
  const localMiss = await load('list of 20 in de-CH (de → en), miss (preview key)', {
    url: list(localized, '&locale=de-CH'),
    headers: { 'x-api-key': previewKey },
  });
  report('Localized client lists against the same lists without locales', base, [
    plainHit,
    localHit,
    plainMiss,
    localMiss,
  ]);
  console.log(
    `localized / plain: hits ${ratio(localHit, plainHit)}, misses ${ratio(localMiss, plainMiss)} (target ≥ 0.9)`,
  );

  // An `eq` among ENTRIES published entries of each type: copies of one entry, written in SQL (copyEntry).
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  const copies = async (typeId, slug) => {
    const first = await publish(
      typeId,
      'copy 0',
      typeId === plain ? { slug: 'page-0' } : { slug: { en: 'page-0' } },
      '?locale=*',
    );
    return copyEntry(client, first, ENTRIES, [
      ['content', 'id', { id: 's.id', name: `'copy ' || s.i`, content: `jsonb_set(t.content, '{slug}', ${slug})` }],
      [
        'content_version',
        'content_id',
        {
          id: 'gen_random_uuid()::text',
          content_id: 's.id',
          content: `jsonb_set(t.content, '{content,slug}', ${slug})`,
        },
      ],
    ]);
  };
  const seconds =
    (await copies(plain, `to_jsonb('page-' || s.i)`)) +
    // English on every entry, German on every second: a de-CH read walks two steps.
    (await copies(
      localized,
      `jsonb_strip_nulls(jsonb_build_object('en', 'page-' || s.i, 'de', case when s.i % 2 = 0 then 'seite-' || s.i end))`,
    ));
  await client.end();
  console.log(`seeded ${ENTRIES} published entries of each type in ${seconds.toFixed(1)} s`);
  const probe = 2 * Math.floor(ENTRIES / 4);
  const api = `${uncached.url}/api/v1${PROJECT}/content`;
  const plainEq = { url: `${api}?typeId=${plain}&content.slug=page-${probe}&limit=1`, headers: { 'x-api-key': key } };
  const localEq = {
    url: `${api}?typeId=${localized}&content.slug=seite-${probe}&limit=1&locale=de-CH`,
    headers: { 'x-api-key': key },
  };
  for (const request of [plainEq, localEq]) {
    const found = await (await fetch(request.url, { headers: request.headers })).json();
    if (found.data?.length !== 1) throw new Error(`expected one entry: ${JSON.stringify(found).slice(0, 300)}`);
  }
  const eqPlain = await load(`eq on a plain property among ${ENTRIES}`, plainEq);
  const eqLocal = await load(`eq on a localized property in de-CH among ${ENTRIES}`, localEq);
  report('An `eq` on a document property, read cache off', base, [eqPlain, eqLocal]);
  console.log(`localized / plain eq: ${ratio(eqLocal, eqPlain)} (target ≥ 0.5: within 2×)`);
} finally {
  await cached.stop();
  await uncached.stop();
  await baseline.stop();
  await database.drop();
  rmSync(dataDir, { recursive: true, force: true });
}
