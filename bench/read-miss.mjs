// One client-read miss scenario (CACHE=off) against a seeded gateway, as a ratio to a node:http
// baseline from the same run; with PROFILE_DIR set the gateway runs under --cpu-prof and the profile lands there.
// `node bench/read-miss.mjs [W1|W2|W3|admin ...]` after `npm run build` (BENCH_SECONDS, BENCH_PASSES, PROFILE_DIR,
// GATEWAY_ROOT). Besides req/s it prints the gateway's CPU time per request, steadier on a shared machine.
import autocannon from 'autocannon';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seedPublished, startReadGateway, workloads } from './client-reads-lib.mjs';
import { createDatabase, startBaseline } from './lib.mjs';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const PASSES = Number(process.env.BENCH_PASSES ?? 2);
const SCENARIOS = process.argv.slice(2).length ? process.argv.slice(2) : ['W1', 'admin'];

const run = (options) => autocannon({ connections: 50, duration: SECONDS, ...options });
const pg = await createDatabase();
const dataDir = mkdtempSync(join(tmpdir(), 'cp-bench-miss-'));
const baseline = await startBaseline();
// GATEWAY_ROOT: another checkout's build (e.g. the code before a change) on the same machine, same data.
const service = await startReadGateway(
  { DATA_DIR: dataDir, DATABASE_URL: pg.url, CACHE: 'off' },
  { profileDir: process.env.PROFILE_DIR, root: process.env.GATEWAY_ROOT },
);
try {
  const seeded = await seedPublished(service.url);
  const scenario = (name) => workloads(service.url, seeded).find(([short]) => short === name)[2];
  if (process.env.DUMP)
    for (const name of SCENARIOS) {
      const o = scenario(name);
      const res = await fetch(o.url, { method: o.method ?? 'GET', headers: o.headers, body: o.body });
      console.log(name, res.status, (await res.text()).slice(0, Number(process.env.DUMP)));
    }
  for (let pass = 1; pass <= PASSES; pass++) {
    const base = await run({ url: baseline.url });
    for (const name of SCENARIOS) {
      const cpuBefore = service.cpu();
      const r = await run(scenario(name));
      const cpuMs = ((service.cpu() - cpuBefore) * 1000) / r.requests.total;
      const failed = r.non2xx + r.errors + r.timeouts;
      console.log(
        `${name} pass ${pass}: ${r.requests.average.toFixed(0)} req/s (${r.requests.total} requests${failed ? `, ${failed} failed` : ''}), baseline ${base.requests.average.toFixed(0)}, ratio ${(r.requests.average / base.requests.average).toFixed(4)}, gateway CPU ${cpuMs.toFixed(2)} ms/request`,
      );
    }
  }
} finally {
  await service.stop();
  await baseline.stop();
  await pg.drop();
  rmSync(dataDir, { recursive: true, force: true });
}
