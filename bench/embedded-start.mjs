// Embedded first start: time to healthy and idle RSS of `npm start` without DATABASE_URL on a new DATA_DIR, from the
// built initial data vs without it (the previous behaviour: create the cluster, run every migration, restart), and on
// an existing DATA_DIR, alternated in one run so the machine's load hits all three alike.
// Standalone: `node bench/embedded-start.mjs` after `npm run build` (BENCH_ROUNDS, default 3; BENCH_IDLE_MS, default
// 3000: how long the service idles before its RSS is read).
import { existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startReadGateway } from './client-reads-lib.mjs';
import { ROOT } from './lib.mjs';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 3000);
// Without its manifest the initial data is not used: the start falls back to the path it replaces.
const MANIFEST = join(ROOT, 'packages/supergraph/dist/initial-pgdata.tar.gz.json');
const HIDDEN = `${MANIFEST}.bench-hidden`;
if (!existsSync(MANIFEST)) throw new Error(`no initial data at ${MANIFEST}: run \`npm run build\` first`);

async function start(dataDir) {
  const service = await startReadGateway({ DATA_DIR: dataDir, EMBEDDINGS: 'off' });
  try {
    await new Promise((r) => setTimeout(r, IDLE_MS));
    return { ms: service.coldStartMs, rss: service.rssMb() };
  } finally {
    await service.stop();
  }
}

async function withoutInitialData(work) {
  renameSync(MANIFEST, HIDDEN);
  try {
    return await work();
  } finally {
    renameSync(HIDDEN, MANIFEST);
  }
}

const samples = { before: [], after: [], existing: [] };
const root = mkdtempSync(join(tmpdir(), 'cp-bench-embedded-'));
try {
  for (let round = 0; round < ROUNDS; round++) {
    // Alternate which goes first, so neither always meets the leftovers of the other.
    const order = round % 2 ? ['after', 'before'] : ['before', 'after'];
    for (const kind of order) {
      const dataDir = join(root, `${kind}-${round}`);
      samples[kind].push(kind === 'before' ? await withoutInitialData(() => start(dataDir)) : await start(dataDir));
      if (kind === 'after') samples.existing.push(await start(dataDir));
    }
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const stat = (kind, key) => median(samples[kind].map((s) => s[key]));
const range = (kind, key, digits) => samples[kind].map((s) => s[key].toFixed(digits)).join(' / ');
const ratio = (kind, key) => (stat(kind, key) / stat('before', key)).toFixed(2);
const row = (label, kind) =>
  `| ${label} | ${(stat(kind, 'ms') / 1000).toFixed(2)} (${range(kind, 'ms', 0)} ms) | ${ratio(kind, 'ms')} ` +
  `| ${stat(kind, 'rss').toFixed(0)} (${range(kind, 'rss', 0)}) | ${ratio(kind, 'rss')} |`;
console.log(
  [
    `### Embedded first start (bench/embedded-start.mjs), ${ROUNDS} rounds, RSS after ${IDLE_MS} ms idle, ` +
      `load average ${loadavg()[0].toFixed(1)}, ${new Date().toISOString()}`,
    '',
    '| start | to healthy, median s (each) | time ratio to before | idle RSS, median MB (each) | RSS ratio to before |',
    '|---|---:|---:|---:|---:|',
    row('new DATA_DIR, before (no initial data)', 'before'),
    row('new DATA_DIR, from initial data', 'after'),
    row('existing DATA_DIR', 'existing'),
  ].join('\n'),
);
