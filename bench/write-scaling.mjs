// A write's database cost against the size of the tables: PUT + publish cycles of one entry on a young database, then
// the same cycles once other entries' versions and events were copied in, the statistics (and the plans the running
// service made from them) left as they were, as on a busy database between two autoanalyze runs. A write touches its
// own rows, so the ratio large ÷ small should stay near 1.
// `node bench/write-scaling.mjs` after `npm run build` — SCALING_CYCLES (200), SCALING_ROWS (50000 versions and as
// many events), BASE_ROOT=<checkout> also measures that checkout's build (first).
import pg from 'pg';
import { adminCaller, createDatabase, databaseCpuSeconds, ROOT, startGateway } from './lib.mjs';

const CYCLES = Number(process.env.SCALING_CYCLES ?? 200);
const ROWS = Number(process.env.SCALING_ROWS ?? 50_000);

/** `count` copies of `table`'s rows of the entry, under new keys: `replace` maps columns to SQL over `t` and `g`. */
async function copyRows(client, table, where, count, replace) {
  const { rows } = await client.query(
    `select column_name from information_schema.columns where table_name = $1 and is_generated = 'NEVER'`,
    [table],
  );
  const columns = rows.map((r) => r.column_name);
  const values = columns.map((c) => replace[c] ?? `t."${c}"`).join(', ');
  const names = columns.map((c) => `"${c}"`).join(', ');
  await client.query(
    `insert into "${table}" (${names}) select ${values} from "${table}" t, generate_series(1, ${count}) g where ${where}`,
  );
}

/** Wall time and database CPU of `CYCLES` cycles, one at a time, in ms per cycle. */
async function cycles(call, id, from) {
  const cpu = databaseCpuSeconds();
  const began = performance.now();
  for (let n = from; n < from + CYCLES; n++) {
    await call('PUT', `/content/${id}`, { content: { title: `cycle ${n}`, body: 'x'.repeat(500), n } });
    await call('POST', `/content/${id}/publish`, {});
  }
  return { wall: (performance.now() - began) / CYCLES, database: ((databaseCpuSeconds() - cpu) * 1000) / CYCLES };
}

async function measure(root) {
  const db = await createDatabase();
  const server = await startGateway({ DATABASE_URL: db.url, EMBEDDINGS: 'off' }, { root });
  const client = new pg.Client({ connectionString: db.url });
  try {
    const call = await adminCaller(server.url);
    const schema = { type: 'object', properties: { title: { type: 'string' }, body: { type: 'string' } } };
    const type = await call('POST', '/content-types', { name: 'Scaling', schema });
    await call('POST', `/content-types/${type.id}/publish`, {});
    const entry = await call('POST', '/content', { typeId: type.id, name: 'Measured', content: { title: 'start' } });
    await cycles(call, entry.id, 0); // warm-up: V8's compiler, the service's and the database's caches and plans
    const small = await cycles(call, entry.id, CYCLES);
    await client.connect();
    const count = async (table) => Number((await client.query(`select count(*) from "${table}"`)).rows[0].count);
    // Versions of other entries (each of the measured entry's versions, copied `each` times under another entry's id),
    // then those entries themselves, in another project: their versions first, so the projection shows them too.
    const each = Math.ceil(ROWS / (await count('content_version')));
    const other = `t."content_id" || '-' || g`;
    await copyRows(client, 'content_version', 'true', each, { id: 'gen_random_uuid()::text', content_id: other });
    await copyRows(client, 'content', `t."id" = '${entry.id}'`, each, {
      id: `t."id" || '-' || g`,
      project_id: `'filler'`,
      name: `t."name" || ' ' || g`,
    });
    const events = Math.ceil(ROWS / (await count('event')));
    await copyRows(client, 'event', 'true', events, {
      id: 'gen_random_uuid()',
      position: `nextval('event_position_seq')`,
    });
    const large = await cycles(call, entry.id, 3 * CYCLES);
    const sizes = await client.query(
      `select (select count(*) from content_version) as versions, (select count(*) from content) as entries,
        (select count(*) from event) as events`,
    );
    return { small, large, sizes: sizes.rows[0] };
  } finally {
    await client.end().catch(() => undefined);
    await server.stop();
    await db.drop();
  }
}

const builds = [{ name: 'this build', root: ROOT }];
if (process.env.BASE_ROOT) builds.unshift({ name: `before (${process.env.BASE_ROOT})`, root: process.env.BASE_ROOT });
const rows = [];
for (const { name, root } of builds) {
  const { small, large, sizes } = await measure(root);
  const f = (n) => n.toFixed(2);
  rows.push(
    `| ${name} | ${f(small.wall)} / ${f(large.wall)} (${f(large.wall / small.wall)}×) | ` +
      `${f(small.database)} / ${f(large.database)} (${f(large.database / small.database)}×) | ` +
      `${sizes.versions} / ${sizes.entries} / ${sizes.events} |`,
  );
}
console.log(
  [
    `### A write against the size of the tables (${new Date().toISOString()})`,
    '',
    `${CYCLES} PUT + publish cycles of one entry, one at a time, before and after other entries' rows were copied in`,
    '(statistics left as they were); ms per cycle, small / large (ratio):',
    '',
    '| build | wall | database CPU | versions / entries / events after |',
    '|---|---|---|---|',
    ...rows,
  ].join('\n'),
);
