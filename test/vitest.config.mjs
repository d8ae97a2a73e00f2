// Black-box test settings: two files at a time, except the files whose assertions time answers, which run alone.
import { defineConfig } from 'vitest/config';
import { sharedConfig } from '../vitest.shared.mjs';

// These assert how fast something answers (a fast 503, an exit within its deadline, a median against a baseline):
// another file's processes on the same two cores would skew their clocks. Vitest runs a project limited to one
// worker after the others, when nothing else of this suite runs.
const TIMED = [
  'broker-outages.test.ts',
  'broker-reconnect.test.ts',
  'broker-stall.test.ts',
  'database-outage.test.ts',
  'database-slow.test.ts',
  'rate-limit.test.ts',
  'schedules-shutdown.test.ts',
  'slow-headers.test.ts',
  'standalone-outage.test.ts',
  'subgraph-subscriptions.test.ts',
  'webhooks-shutdown.test.ts',
];

// Each project spells its settings out: with `extends: true` vitest would add the root's `include` to its own.
// teardown.ts stops what a file started and removes its temp folders even when a test failed or timed out.
const setupFiles = [...sharedConfig.test.setupFiles, './support/teardown.ts'];
const project = (name, test) => ({
  plugins: sharedConfig.plugins,
  test: { ...sharedConfig.test, setupFiles, name, ...test },
});

export default defineConfig({
  test: {
    projects: [
      // Most of a black-box file's time is spent waiting on the services it started (start-up, polling, timeouts):
      // a second file fits beside it on a 2-core machine, where vitest's default would run one (cores - 1).
      project('blackbox', { exclude: [...sharedConfig.test.exclude, ...TIMED], maxWorkers: 2 }),
      project('timed', { include: TIMED, maxWorkers: 1 }),
    ],
  },
});
