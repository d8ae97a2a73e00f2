// Checks formatting, lint and types, runs every workspace's tests through turbo, then prints the one summary line CI
// reads: "N passed, M failed" (the formatting, lint and type checks count as one test each).
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const roots = ['packages', 'subgraphs', 'apps'];
const dirs = [...roots.flatMap((r) => readdirSync(r).map((d) => join(r, d))), 'test'];
const reportOf = (dir) => join(dir, '.vitest-report.json');
for (const dir of dirs) rmSync(reportOf(dir), { force: true });

let passed = 0;
let failed = 0;
// Prettier decides formatting, typescript-eslint catches unused code and unsafe patterns, and every workspace's
// `typecheck` (tests included: vitest only strips types) catches what the builds don't compile. Each fails CI like a
// test.
for (const [name, args, fix] of [
  ['prettier', ['prettier', '--check', '--log-level', 'warn', '.'], '`npm run format`'],
  ['eslint', ['eslint', '--max-warnings', '0', '.'], '`npm run lint`'],
  ['typecheck', ['turbo', 'run', 'typecheck', '--output-logs=errors-only'], '`npm run typecheck`'],
]) {
  const check = spawnSync('npx', args, { stdio: 'inherit' });
  if (check.status === 0) passed++;
  else {
    failed++;
    console.error(`${name} check failed: run ${fix}, fix what it reports and commit the result`);
  }
}

// Everything the tests start carries this run's marker in its environment, and every temp folder they make lands in
// this run's own temp folder (TMPDIR): afterwards, what survived can be told apart from the rest of the machine.
// Readable by all: PostgreSQL clusters the fault tests start run as the `postgres` user inside it.
const run = { id: `${process.pid}-${Date.now().toString(36)}`, tmp: mkdtempSync(join(tmpdir(), 'cp-test-run-')) };
chmodSync(run.tmp, 0o755);
const testEnv = { ...process.env, CP_TEST_RUN: run.id, TMPDIR: run.tmp };
// Ctrl-C reaches turbo and the tests too (same process group); this process stays to clean up after them.
let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => (interrupted = true));

const turboStatus = process.argv.length > 2 ? turboTests(process.argv.slice(2)) : await blackboxFirst();
const leftovers = await removeLeftovers();
if (leftovers.length > 0) {
  failed++;
  for (const leftover of leftovers) console.error(`left behind by the tests: ${leftover}`);
  console.error('leftover check failed: every process a test starts must be stopped and every temp folder removed');
}

for (const dir of dirs) {
  if (!existsSync(reportOf(dir))) continue;
  const report = JSON.parse(readFileSync(reportOf(dir), 'utf8'));
  passed += report.numPassedTests;
  failed += report.numFailedTests;
  // A file that failed to load (syntax error, failing hook) has no failed test: count it once.
  failed += report.testResults.filter(
    (f) => f.status === 'failed' && f.assertionResults.every((a) => a.status !== 'failed'),
  ).length;
}
if (turboStatus !== 0 && failed === 0) failed = 1;
console.log(`${passed} passed, ${failed} failed`);
process.exit(interrupted ? 130 : failed === 0 && passed > 0 ? 0 : 1);

/** Every workspace's tests in one turbo run, two at a time, with the caller's turbo options (`npm test -- --filter=…`). */
function turboTests(args) {
  return spawnSync('npx', ['turbo', 'run', 'test', '--continue', '--concurrency=2', ...args], {
    stdio: 'inherit',
    env: testEnv,
  }).status;
}

/**
 * The black-box suite takes longer than every other workspace's tests together, yet in one turbo run it became ready
 * last (its build waits on every package's) and ran after the others had held both slots. So: build everything, start
 * the black-box suite at once, and run the other workspaces' tests beside it one at a time: still two tasks at a time.
 * `--only` because everything is built, and two turbo runs must not restore the same build outputs at once.
 */
async function blackboxFirst() {
  const build = spawnSync('npx', ['turbo', 'run', 'build', '--continue', '--output-logs=errors-only'], {
    stdio: 'inherit',
  });
  const run = (args) =>
    new Promise((resolve) => {
      const child = spawn('npx', ['turbo', 'run', 'test', '--only', ...args], { stdio: 'inherit', env: testEnv });
      child.once('error', () => resolve(1));
      child.once('exit', (code) => resolve(code ?? 1));
    });
  const statuses = await Promise.all([
    run(['--filter=@cp/blackbox']),
    run(['--continue', '--concurrency=1', '--filter=!@cp/blackbox']),
  ]);
  return [build.status, ...statuses].find((status) => status !== 0) ?? 0;
}

/**
 * Processes of this run still alive (found by the marker in `/proc/<pid>/environ`) are killed, this run's temp folder
 * is removed; returns what was left: every such process, and each folder the suite's own helpers name `cp-…`. Other
 * entries (a library's scratch files) go with the folder without failing the run.
 */
async function removeLeftovers() {
  const marker = `CP_TEST_RUN=${run.id}`;
  const alive = () =>
    readdirSync('/proc')
      .filter((pid) => /^\d+$/.test(pid) && Number(pid) !== process.pid)
      .filter((pid) => {
        try {
          return readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(marker);
        } catch {
          return false; // gone meanwhile, or not ours to read
        }
      });
  // A process that is exiting right now (a worker's last children, reaped a moment later) is not a leftover.
  let pids = alive();
  for (let i = 0; i < 20 && pids.length > 0; i++) {
    await new Promise((r) => setTimeout(r, 100));
    pids = alive();
  }
  const found = [];
  for (const pid of pids) {
    let command = '?';
    try {
      command = readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').join(' ').trim();
    } catch {
      // gone meanwhile
    }
    found.push(`process ${pid}: ${command}`);
    try {
      process.kill(Number(pid), 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
  let entries = [];
  try {
    entries = readdirSync(run.tmp);
  } catch {
    // removed by someone else
  }
  for (const name of entries.filter((n) => n.startsWith('cp-'))) found.push(`folder ${join(run.tmp, name)}`);
  try {
    rmSync(run.tmp, { recursive: true, force: true });
  } catch (err) {
    // e.g. a file system a test mounted there and did not unmount
    found.push(`folder ${run.tmp} (not removable: ${err.code ?? err.message})`);
  }
  return found;
}
