// Rate-limit counter upserts on PostgreSQL: a logged table (what the gateway used) vs an UNLOGGED one. Prints a ratio.
import pg from 'pg';

const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const N = Number(process.env.N ?? 2000);
const CONCURRENCY = 10;
const upsert = (table) =>
  `insert into ${table} values ($1, 1, $2) on conflict (key) do update set points = case when ${table}.expire <= $3 then 1 else ${table}.points + 1 end, expire = case when ${table}.expire <= $3 then $2 else ${table}.expire end returning points, expire`;

const pool = new pg.Pool({ connectionString: url, max: CONCURRENCY });
async function run(table) {
  await pool.query(`drop table if exists ${table}`);
  await pool.query(
    `create ${table.includes('unlogged') ? 'unlogged' : ''} table ${table} (key varchar(255) primary key, points integer not null default 0, expire bigint)`,
  );
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < N) {
        next++;
        await pool.query(upsert(table), [`user:${next % 50}`, Date.now() + 60_000, Date.now()]);
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  await pool.query(`drop table ${table}`);
  return N / seconds;
}
const results = {};
for (const pass of [1, 2]) {
  results[`logged ${pass}`] = await run('bench_rl_logged');
  results[`unlogged ${pass}`] = await run('bench_rl_unlogged');
}
await pool.end();
for (const [k, v] of Object.entries(results)) console.log(`${k}: ${v.toFixed(0)} upserts/s`);
console.log(`unlogged / logged (pass 2): ${(results['unlogged 2'] / results['logged 2']).toFixed(2)}`);
