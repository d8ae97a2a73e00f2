// Client-read benchmark: (W1 list, W2 resolved entry, W3 key-holder GraphQL) cache hit vs miss, admin list, admin
// read by id (W2a, JWT), on PostgreSQL and on the embedded database, as ratios to a node:http baseline; plus idle RSS and cold start.
// Standalone: `node bench/client-reads.mjs` after `npm run build` (BENCH_SECONDS, BENCH_PASSES, BENCH_DATABASES=postgres,embedded;
// BENCH_CACHES=on,off and BENCH_ONLY=W1,W2,W3,W1i,admin,W2a,W2a-floor,W2a-arch-floor narrow it (W1i, a list with include=2, only when named); BENCH_PROFILE=<dir> writes the
// service's CPU profiles there). The floors, PostgreSQL only: W2a's load on `read-floor-server.mjs` (the same row behind
// bare node:http) and on `read-arch-floor-server.mjs` (node:http, the resolvers and MikroORM, nothing else).
import autocannon from 'autocannon';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seedIncludes, seedPublished, startReadGateway, workloads } from './client-reads-lib.mjs';
import { createDatabase, freePort, JWT_SECRET, spawnNode, startBaseline } from './lib.mjs';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const PASSES = Number(process.env.BENCH_PASSES ?? 2);
const CONNECTIONS = 50;
const DATABASES = (process.env.BENCH_DATABASES ?? 'postgres,embedded').split(',');
const CACHES = (process.env.BENCH_CACHES ?? 'on,off').split(',');
const ONLY = process.env.BENCH_ONLY?.split(',');
const PROFILE = process.env.BENCH_PROFILE;
/** W2a's load on servers that leave parts of the platform out, on the database the gateway seeded (PostgreSQL only). */
const FLOORS = [
  ['W2a-floor', 'bench/read-floor-server.mjs', 'W2a floor: the same row behind bare node:http', () => ({})],
  [
    'W2a-arch-floor',
    'bench/read-arch-floor-server.mjs',
    'W2a architecture floor: node:http, the resolvers and MikroORM',
    (env) => ({ DATA_DIR: env.DATA_DIR, JWT_SECRET, EMBEDDINGS: 'off' }),
  ],
];

async function load(name, options) {
  const result = await autocannon({ connections: CONNECTIONS, duration: SECONDS, ...options });
  // Reported, not thrown: on a machine shared with other work a scenario may time out without the service failing.
  const failed = result.non2xx + result.errors + result.timeouts;
  return {
    name: failed > 0 ? `${name} (${failed} failed or timed out)` : name,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
  };
}

const baseline = await startBaseline();
const lines = [
  `### Client reads (bench/client-reads.mjs), ${CONNECTIONS} connections, ${SECONDS} s per scenario, ${PASSES} passes, ${new Date().toISOString()}`,
  '',
];
try {
  for (const database of DATABASES) {
    const pg = database === 'postgres' ? await createDatabase() : undefined;
    const dataDir = mkdtempSync(join(tmpdir(), 'cp-bench-reads-'));
    const env = { DATA_DIR: dataDir, ...(pg ? { DATABASE_URL: pg.url } : {}) };
    try {
      const rows = [];
      const facts = {};
      for (const cache of CACHES) {
        const service = await startReadGateway({ ...env, CACHE: cache }, { profileDir: PROFILE });
        try {
          const seeded = facts.seeded ?? (facts.seeded = await seedPublished(service.url));
          if (ONLY?.includes('W1i')) seeded.include ??= await seedIncludes(service.url, seeded);
          await new Promise((r) => setTimeout(r, 2000));
          facts[`rss_${cache}`] = service.rssMb();
          facts[`cold_${cache}`] = service.coldStartMs;
          for (let pass = 1; pass <= PASSES; pass++) {
            const base = await load('node:http baseline', { url: baseline.url });
            for (const [short, name, options] of workloads(service.url, seeded)) {
              // Admin answers never come from the read cache; with CACHE on, an admin entry read whose row is unchanged
              // is answered again after one query (apps/gateway/src/cache/admin-reads.ts).
              const admin = short === 'admin' || short === 'W2a';
              if (!ONLY || ONLY.includes(short)) {
                const r = await load(name, options);
                const state = admin ? ['CACHE on', 'CACHE=off'] : ['hit', 'miss (CACHE=off)'];
                rows.push({
                  ...r,
                  name: `${r.name} — ${cache === 'on' ? state[0] : state[1]}`,
                  pass,
                  ratio: r.rps / base.rps,
                  base: base.rps,
                });
              }
            }
            for (const [short, entry, name, extra] of FLOORS) {
              if (!pg || cache !== 'off' || (ONLY && !ONLY.includes(short))) continue;
              const port = String(await freePort());
              const floor = await spawnNode(entry, { DATABASE_URL: pg.url, PORT: port, ...extra(env) }, /"url"/);
              try {
                const [, , options] = workloads(floor.url, seeded).find(([w]) => w === 'W2a');
                const r = await load(name, options);
                rows.push({ ...r, pass, ratio: r.rps / base.rps, base: base.rps });
              } finally {
                await floor.stop();
              }
            }
          }
          facts[`rss_after_${cache}`] = service.rssMb();
        } finally {
          await service.stop();
        }
      }
      lines.push(`#### ${database === 'postgres' ? 'PostgreSQL' : 'embedded (PGlite)'}`, '');
      lines.push(
        '| scenario | pass | req/s | p50 ms | p99 ms | baseline req/s | ratio to baseline |',
        '|---|---:|---:|---:|---:|---:|---:|',
      );
      for (const r of rows)
        lines.push(
          `| ${r.name} | ${r.pass} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.base.toFixed(0)} | ${r.ratio.toFixed(4)} |`,
        );
      lines.push('');
      const mb = (v) => (v === undefined ? '–' : `${v.toFixed(0)} MB`);
      const ms = (v) => (v === undefined ? '–' : `${v.toFixed(0)} ms`);
      lines.push(
        `Cold start to healthy (spawn → first 200 on /health): ${ms(facts.cold_on)} (cache on), ${ms(facts.cold_off)} (cache off; the second start when both run).`,
      );
      lines.push(
        `RSS idle after start (+ seed on the first): ${mb(facts.rss_on)} (cache on), ${mb(facts.rss_off)} (cache off); after the loads: ${mb(facts.rss_after_on)} / ${mb(facts.rss_after_off)}.`,
        '',
      );
    } finally {
      await pg?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
} finally {
  await baseline.stop();
}
console.log(lines.join('\n'));
