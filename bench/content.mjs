// Content list, get-one and POST search at N entries (default 10k), as ratios to node:http.
import pg from 'pg';
import { createDatabase, load, login, report, startBaseline, startGateway } from './lib.mjs';

const N = Number(process.env.BENCH_CONTENT ?? 10_000);
const PROJECT = '/organizations/default/projects/default';
const db = await createDatabase();
const baseline = await startBaseline();
const gateway = await startGateway({ DATABASE_URL: db.url });
try {
  const token = await login(gateway.url);
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
  const post = async (path, body) => {
    const res = await fetch(`${gateway.url}/app/v1${PROJECT}${path}`, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
    });
    return res.json();
  };
  const type = await post('/content-types', {
    name: 'Bench',
    schema: { type: 'object', properties: { title: { type: 'string' } } },
  });
  await post(`/content-types/${type.id}/publish`, {});
  const sample = await post('/content', {
    typeId: type.id,
    name: 'Sample entry',
    content: { title: 'sample' },
    tags: ['bench'],
  });
  // Bulk rows straight into the table: the API would take minutes for 10k; the read paths are what is measured.
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  await client.query(
    `insert into content (id, organization_id, project_id, type_id, type_version, package_version, name, description, status, is_template, content, compiled, tags, metadata, created_by_id, created_at, updated_at)
     select gen_random_uuid()::text, 'default', 'default', $1, 1, '0.0.0', 'Entry ' || i, 'About topic ' || (i % 100), case when i % 3 = 0 then 'published' else 'draft' end,
            false, jsonb_build_object('title', 'Title ' || i), '', jsonb_build_array('t' || (i % 50)), '{}'::jsonb, 'bench', now() - (i || ' seconds')::interval, now() - (i || ' seconds')::interval
       from generate_series(1, $2) as i`,
    [type.id, N],
  );
  await client.query('analyze content');
  await client.end();

  const base = await load('bare node:http, 1 KB JSON (baseline)', { url: baseline.url });
  const search = (name, filter) =>
    load(`POST content search (${name} + total)`, {
      url: `${gateway.url}/app/v1${PROJECT}/content`,
      method: 'POST',
      headers,
      body: JSON.stringify({ filter, limit: 20 }),
    });
  const rows = [
    await load(`GET content (page of 20 of ${N})`, { url: `${gateway.url}/app/v1${PROJECT}/content`, headers }),
    await load('GET content?tags=t7&status=published', {
      url: `${gateway.url}/app/v1${PROJECT}/content?tags=t7&status=published`,
      headers,
    }),
    await load('GET content?search=topic', { url: `${gateway.url}/app/v1${PROJECT}/content?search=topic`, headers }),
    await load('GET content/{id}', { url: `${gateway.url}/app/v1${PROJECT}/content/${sample.id}`, headers }),
    // 'Entry 1' matches 10× more rows at 10× the entries and the exact total counts them all; "Entry 4242" matches 1 at
    // 10k and 11 at 100k; "Sample" and the suffix "%Entry 4242" match one entry at every size, so they show what the
    // trigram index itself does as the table grows.
    await search('broad like "Entry 1" + status', { status: { eq: 'published' }, name: { like: 'Entry 1' } }),
    await search('selective like "Entry 4242"', { name: { like: 'Entry 4242' } }),
    await search('one-match like "Sample"', { name: { like: 'Sample' } }),
    await search('one-match suffix like "%Entry 4242"', { name: { like: '%Entry 4242' } }),
  ];
  report(`Content at ${N} entries`, base, rows);
} finally {
  await gateway.stop();
  await baseline.stop();
  await db.drop();
}
