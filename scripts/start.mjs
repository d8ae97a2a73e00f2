// `npm start`: builds only when a source changed since the last successful build, then runs the gateway in this process
// (so this pid is the gateway's: signal it; signalling npm's own pid works too, see exitGracefullyOnSignals).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const STAMP = join(ROOT, 'node_modules', '.cache', 'cp-start-build-stamp');
const ENTRY = join(ROOT, 'apps', 'gateway', 'dist', 'main.js');
const SKIP = new Set(['node_modules', 'dist', '.turbo', 'data']);

/**
 * The newest modification time and the number of files of everything turbo's build reads (sources, manifests, the
 * lockfile, tsconfigs, schema): a few hundred stat calls, where even a fully cached `turbo run build` costs seconds.
 */
function fingerprint() {
  let newest = 0;
  let count = 0;
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (SKIP.has(entry.name)) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else {
        newest = Math.max(newest, statSync(path).mtimeMs);
        count++;
      }
    }
  };
  for (const dir of ['apps', 'packages', 'subgraphs', 'schema']) walk(join(ROOT, dir));
  for (const file of ['package.json', 'package-lock.json', 'turbo.json', 'tsconfig.base.json']) {
    newest = Math.max(newest, statSync(join(ROOT, file)).mtimeMs);
    count++;
  }
  return `${newest}:${count}`;
}

const before = fingerprint();
const built = existsSync(ENTRY) && existsSync(STAMP) && readFileSync(STAMP, 'utf8') === before;
// START_SKIP_BUILD=1: the caller built already (the black-box tests, which must not rewrite dist/ under other tests).
if (!built && process.env.START_SKIP_BUILD !== '1') {
  // A first build compiles 17 workspaces and bundles GraphiQL: silence for that long looks like a hang, so say so.
  const first = !existsSync(ENTRY);
  console.error(
    first
      ? 'Building the service before its first start (about 1–3 minutes on 2 cores; later starts skip this)…'
      : 'Sources changed since the last build: rebuilding what changed (usually a few seconds)…',
  );
  const startedAt = Date.now();
  const turbo = spawnSync('npx', ['turbo', 'run', 'build', '--output-logs=errors-only'], {
    cwd: ROOT,
    stdio: 'inherit',
    shell: process.platform === 'win32',
  });
  if (turbo.status !== 0) process.exit(turbo.status ?? 1);
  mkdirSync(dirname(STAMP), { recursive: true });
  // The fingerprint from before the build: a file edited during the build triggers the next one.
  writeFileSync(STAMP, before);
  console.error(`Built in ${Math.round((Date.now() - startedAt) / 1000)} s; starting.`);
}
await import(pathToFileURL(ENTRY).href);
