// Delta sync after CHANGES changes among ENTRIES published entries: the rows its statements read (EXPLAIN ANALYZE of
// each statement the sync ran) against the number of changed entries, and its time against one page of the initial
// sync, in the same run. `node bench/sync.mjs` after `npm run build` (ENTRIES, CHANGES; SHOW_PLANS=1 prints each plan).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { loadConfig, loadJwtSecret } from '../packages/config/dist/index.js';
import { openDatabase } from '../packages/db/dist/index.js';
import { SUBGRAPHS } from '../apps/supergraph/dist/index.js';
import { SyncService } from '../subgraphs/content/dist/sync/sync.service.js';
import { SyncTokens } from '../subgraphs/content/dist/sync/sync-token.js';
import { adminCaller, copyEntry, createDatabase, JWT_SECRET, startGateway } from './lib.mjs';

const ENTRIES = Number(process.env.ENTRIES ?? 100_000);
const CHANGES = Number(process.env.CHANGES ?? 1000);
const PROJECT = '/organizations/default/projects/default';

/** Rows a plan's scans read: each scan's rows out plus those its filters dropped, times its loops (heap scans only). */
function rowsRead(plan) {
  const own = /Scan$/.test(plan['Node Type']) && !['Bitmap Index Scan', 'Function Scan'].includes(plan['Node Type']);
  const here = own
    ? (plan['Actual Rows'] + (plan['Rows Removed by Filter'] ?? 0) + (plan['Rows Removed by Index Recheck'] ?? 0)) *
      plan['Actual Loops']
    : 0;
  return here + (plan.Plans ?? []).reduce((sum, child) => sum + rowsRead(child), 0);
}

const database = await createDatabase();
const dataDir = mkdtempSync(join(tmpdir(), 'cp-bench-sync-'));
const service = await startGateway({ DATA_DIR: dataDir, DATABASE_URL: database.url, CACHE: 'off', EMBEDDINGS: 'off' });
let db;
try {
  const call = await adminCaller(service.url);
  const type = await call('POST', '/content-types', {
    name: 'Page',
    schema: { type: 'object', properties: { n: { type: 'integer' } } },
  });
  await call('POST', `/content-types/${type.id}/publish`);
  const first = await call('POST', '/content', { typeId: type.id, name: 'Page 0', content: { n: 0 } });
  await call('POST', `/content/${first.id}/publish`);
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  const seeded = await copyEntry(client, first.id, ENTRIES, [
    ['content', 'id', { id: 's.id', name: `'Page ' || s.i` }],
    ['content_version', 'content_id', { id: 'gen_random_uuid()::text', content_id: 's.id' }],
  ]);
  // Their history, as the API would have written it: a creation and a publication each, numbered, so the event table
  // holds more than the changes the delta reads and the planner sizes it as in a project that lived.
  await client.query(
    `insert into "event" ("id", "type", "resource_type", "resource_id", "organization_id", "project_id",
      "version", "published", "occurred_at", "position")
    select gen_random_uuid(), 'content.' || a.action, 'content', c."id", c."organization_id", c."project_id",
      case when a.published then 1 end, a.published, c."created_at", nextval('event_position_seq')
    from "content" c, (values ('created', false), ('published', true)) a(action, published)
    where c."id" <> $1 order by c."id", a.published`,
    [first.id],
  );
  await client.query('vacuum analyze');
  console.log(`seeded ${ENTRIES} published entries and their events in ${seeded.toFixed(1)} s`);

  const { key } = await call('POST', '/api-keys', { name: 'bench' });
  const api = `${service.url}/api/v1${PROJECT}/sync`;
  const get = async (query) => {
    const began = performance.now();
    const res = await fetch(`${api}?${query}`, { headers: { 'x-api-key': key } });
    if (res.status !== 200) throw new Error(`sync ${query}: ${res.status} ${await res.text()}`);
    return { page: await res.json(), ms: performance.now() - began };
  };
  /** Every page of a sync: the sync token, the entries it named, and each page's time. */
  const walk = async (start) => {
    let { page, ms } = await get(start);
    const times = [ms];
    let named = page.items.length + page.deleted.length;
    while (page.nextPageToken) {
      ({ page, ms } = await get(`pageToken=${encodeURIComponent(page.nextPageToken)}`));
      times.push(ms);
      named += page.items.length + page.deleted.length;
    }
    return { syncToken: page.nextSyncToken, named, times };
  };
  const initial = await walk('initial=true');
  if (initial.named !== ENTRIES) throw new Error(`initial sync named ${initial.named} entries`);

  // CHANGES distinct entries change: most are edited and republished, some unpublished, some deleted.
  const { rows } = await client.query(`select id from published_content order by random() limit $1`, [CHANGES]);
  const ids = rows.map((r) => r.id);
  const change = async (id, i) => {
    if (i % 10 === 8) return call('POST', `/content/${id}/unpublish`);
    if (i % 10 === 9) return call('DELETE', `/content/${id}`);
    await call('PUT', `/content/${id}`, { content: { n: i } });
    return call('POST', `/content/${id}/publish`);
  };
  const began = performance.now();
  for (let i = 0; i < ids.length; i += 4) await Promise.all(ids.slice(i, i + 4).map((id, j) => change(id, i + j)));
  console.log(`${CHANGES} changes in ${((performance.now() - began) / 1000).toFixed(1)} s`);
  // What autovacuum does on a live database: statistics for the planner, the visibility map for index-only scans.
  await client.query('vacuum analyze');

  const delta = await walk(`syncToken=${encodeURIComponent(initial.syncToken)}`);
  if (delta.named !== CHANGES) throw new Error(`the delta named ${delta.named} entries, not ${CHANGES}`);

  // The same delta in this process, each statement recorded, then run again under EXPLAIN ANALYZE.
  const config = loadConfig({ DATABASE_URL: database.url, DATA_DIR: dataDir, JWT_SECRET });
  db = await openDatabase({ config, modules: SUBGRAPHS.map((s) => s.database) });
  const connection = db.orm.em.getConnection();
  const execute = connection.execute.bind(connection);
  const statements = [];
  connection.execute = (query, params = [], ...rest) => {
    if (typeof query === 'string') statements.push([query, params]);
    return execute(query, params, ...rest);
  };
  const sync = new SyncService(new SyncTokens(loadJwtSecret(config)));
  const scope = { organizationId: 'default', projectId: 'default' };
  let args = { syncToken: initial.syncToken };
  let named = 0;
  for (;;) {
    const page = await sync.page(db.orm.em.fork(), scope, 'published', args, false);
    named += page.items.length + page.deleted.length;
    if (!page.nextPageToken) break;
    args = { pageToken: page.nextPageToken };
  }
  connection.execute = execute;
  if (named !== CHANGES) throw new Error(`in process, the delta named ${named} entries`);
  const byKind = new Map();
  let read = 0;
  for (const [sql, params] of statements) {
    const [row] = await execute(`explain (analyze, format json) ${sql}`, params);
    const rowsOf = rowsRead(row['QUERY PLAN'][0].Plan);
    if (process.env.SHOW_PLANS) {
      const [text] = [await execute(`explain (analyze) ${sql}`, params)];
      console.log(sql.slice(0, 300), '\n', text.map((r) => r['QUERY PLAN']).join('\n'));
    }
    read += rowsOf;
    const kind = sql.includes('"published_content"')
      ? 'entries (published_content)'
      : sql.includes('lateral')
        ? 'later-event probes (event)'
        : 'events after the token (event)';
    const entry = byKind.get(kind) ?? { statements: 0, rows: 0 };
    byKind.set(kind, { statements: entry.statements + 1, rows: entry.rows + rowsOf });
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const total = (xs) => xs.reduce((a, b) => a + b, 0);
  console.log(`\n| statements of the delta | count | rows read |`);
  console.log(`|---|---:|---:|`);
  for (const [kind, { statements: n, rows: r }] of byKind) console.log(`| ${kind} | ${n} | ${r} |`);
  console.log(`| **all** | ${statements.length} | **${read}** |`);
  console.log(
    `\nchanged entries ${CHANGES}; rows read ${read} = **${(read / CHANGES).toFixed(2)}×** the changed rows (target ≤ 2×)`,
  );
  console.log(
    `\n| walk | pages | total ms | median page ms |\n|---|---:|---:|---:|\n| initial sync of ${ENTRIES} | ${initial.times.length} | ${total(initial.times).toFixed(0)} | ${median(initial.times).toFixed(1)} |\n| delta of ${CHANGES} changes | ${delta.times.length} | ${total(delta.times).toFixed(0)} | ${median(delta.times).toFixed(1)} |`,
  );
  await client.end();
} finally {
  await db?.close();
  await service.stop();
  await database.drop();
  rmSync(dataDir, { recursive: true, force: true });
}
