// Checks formatting, lint and types, runs every workspace's tests through turbo, then prints the one summary line CI
// reads: "N passed, M failed" (the formatting, lint and type checks count as one test each).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, readdirSync } from 'node:fs';
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

const turbo = spawnSync('npx', ['turbo', 'run', 'test', '--continue', '--concurrency=2', ...process.argv.slice(2)], {
  stdio: 'inherit',
});

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
if (turbo.status !== 0 && failed === 0) failed = 1;
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
