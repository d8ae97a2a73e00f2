// CPU per request of client and admin reads (cache hits, W1 W2 W3 W2a) on the request pipeline, against bare node:http
// measured the same way in the same run, and optionally against another build of the gateway (`BENCH_BASE_ROOT`: a
// built checkout of the baseline commit). Each process's CPU seconds (user + system, all threads, from /proc) over a
// fixed number of requests stay steady when other work shares the machine, where req/s swing two- or threefold.
// `node bench/pipeline-cpu.mjs` after `npm run build` (BENCH_REQUESTS per workload, BENCH_ROUNDS alternations,
// BENCH_ONLY=W1,W2,W3,W2a,W1i; W1i, a list with `include=2`, needs a build with references).
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seedIncludes, seedPublished, startReadGateway, workloads } from './client-reads-lib.mjs';
import { cpuSecondsOf, createDatabase, ROOT } from './lib.mjs';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 20000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const BASE_ROOT = process.env.BENCH_BASE_ROOT;
const ONLY = (process.env.BENCH_ONLY ?? 'W1,W2,W3,W2a').split(',');
/** A folder for the gateways' CPU profiles; each measured load's window is printed for `profile-summary.mjs @from-to`. */
const PROFILE = process.env.BENCH_PROFILE;

/** Bare node:http answering a fixed 1 KB JSON body, in a process of its own so that its CPU can be read. */
async function startNodeHttp() {
  const code = `const body = JSON.stringify({ data: 'x'.repeat(1000) });
    const server = require('node:http').createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
    server.listen(0, '127.0.0.1', () => console.log(server.address().port));`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise((resolve) => child.stdout.once('data', (d) => resolve(Number(String(d)))));
  return { url: `http://127.0.0.1:${port}`, pid: child.pid, stop: () => child.kill('SIGTERM') };
}

/** Microseconds of the process's CPU per request over REQUESTS requests (after a warm-up of a tenth as many). */
async function cpuPerRequest(pid, options) {
  await autocannon({ connections: 20, amount: Math.ceil(REQUESTS / 10), ...options });
  const before = cpuSecondsOf(pid);
  const from = process.hrtime.bigint() / 1000n;
  const result = await autocannon({ connections: 20, amount: REQUESTS, ...options });
  if (PROFILE) console.error(`${options.url}: profile window @${from}-${process.hrtime.bigint() / 1000n}`);
  const failed = result.non2xx + result.errors + result.timeouts;
  if (failed > 0) throw new Error(`${options.url}: ${failed} of ${REQUESTS} requests failed`);
  return ((cpuSecondsOf(pid) - before) * 1e6) / REQUESTS;
}

async function measureBuild(root, databaseUrl) {
  const dataDir = mkdtempSync(join(tmpdir(), 'cp-bench-cpu-'));
  const service = await startReadGateway(
    { DATA_DIR: dataDir, DATABASE_URL: databaseUrl },
    { root, profileDir: PROFILE },
  );
  try {
    const seeded = await seedPublished(service.url);
    const out = {};
    for (const [name, , options] of workloads(service.url, seeded))
      if (ONLY.includes(name)) out[name] = await cpuPerRequest(service.pid, options);
    if (ONLY.includes('W1i')) out.W1i = await cpuPerRequest(service.pid, await seedIncludes(service.url, seeded));
    return out;
  } finally {
    await service.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const builds = BASE_ROOT
  ? [
      ['base', BASE_ROOT],
      ['this', ROOT],
    ]
  : [['this', ROOT]];
const rows = [];
for (let round = 1; round <= ROUNDS; round++) {
  const http = await startNodeHttp();
  const floor = await cpuPerRequest(http.pid, { url: http.url });
  http.stop();
  for (const [label, root] of builds) {
    const db = await createDatabase();
    try {
      const measured = await measureBuild(root, db.url);
      for (const [name, us] of Object.entries(measured))
        rows.push({ round, label, name, us, ratio: floor / us, floor });
    } finally {
      await db.drop();
    }
  }
}

console.log(`### CPU per request (bench/pipeline-cpu.mjs), ${REQUESTS} requests each, ${new Date().toISOString()}\n`);
console.log('| round | build | workload | µs CPU / request | node:http µs / request | node:http ÷ this |');
console.log('|---:|---|---|---:|---:|---:|');
for (const r of rows)
  console.log(
    `| ${r.round} | ${r.label} | ${r.name} | ${r.us.toFixed(0)} | ${r.floor.toFixed(0)} | ${r.ratio.toFixed(3)} |`,
  );
