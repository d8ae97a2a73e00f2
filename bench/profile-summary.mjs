// Summarises a V8 .cpuprofile by self time: top functions and totals per package (node_modules/<pkg>) or project file.
// `node bench/profile-summary.mjs <file.cpuprofile> [requests] [lastSeconds[:skipSeconds]]` — with a request count, also
// µs per request; `20:10` counts the 10 s that end 10 s before the profile does; `@<from>-<to>` counts the samples
// between two monotonic clock readings in µs (`process.hrtime.bigint() / 1000n` of any process on the machine), and
// `@<from>-<to>,<from>-<to>…` those of several windows.
import { readFileSync } from 'node:fs';

const [file, requests, lastSeconds] = process.argv.slice(2);
const profile = JSON.parse(readFileSync(file, 'utf8'));
const self = new Map(profile.nodes.map((n) => [n.id, 0]));
const dts = profile.timeDeltas;
// With `lastSeconds`, only samples in the final window count (the load, not start-up and seeding).
const absolute = /^@\d+-\d+(,\d+-\d+)*$/.test(lastSeconds ?? '');
const [last, skip = 0] = absolute ? [] : (lastSeconds ?? '').split(':').map(Number);
const windows = absolute
  ? lastSeconds
      .slice(1)
      .split(',')
      .map((w) => w.split('-').map(Number))
  : [[last ? profile.endTime - last * 1e6 : -Infinity, profile.endTime - skip * 1e6]];
let at = profile.startTime;
for (let i = 0; i < profile.samples.length; i++) {
  at += dts[i] ?? 0;
  if (windows.some(([from, to]) => at >= from && at <= to))
    self.set(profile.samples[i], self.get(profile.samples[i]) + (dts[i] ?? 0));
}
const total = [...self.values()].reduce((a, b) => a + b, 0);

function where(url) {
  if (!url) return '(native/vm)';
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1];
  if (url.startsWith('node:')) return 'node:' + url.slice(5).split('/')[0];
  const p = /\/(apps|packages|subgraphs)\/([^/]+)\/(?:dist\/)?(.*)$/.exec(url);
  return p ? `${p[1]}/${p[2]}/${p[3]}` : url;
}
const byPkg = new Map();
const byFn = new Map();
for (const n of profile.nodes) {
  const t = self.get(n.id);
  const pkg = n.callFrame.url ? where(n.callFrame.url) : n.callFrame.functionName || '(native)';
  byPkg.set(pkg, (byPkg.get(pkg) ?? 0) + t);
  const fn = `${n.callFrame.functionName || '(anon)'} ${where(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;
  byFn.set(fn, (byFn.get(fn) ?? 0) + t);
}
const per = (t) => (requests ? ` ${(t / Number(requests)).toFixed(1)} µs/req` : '');
const show = (title, map, n) => {
  console.log(`\n${title}`);
  for (const [k, t] of [...map].sort((a, b) => b[1] - a[1]).slice(0, n))
    console.log(
      `${((100 * t) / total).toFixed(1).padStart(5)}% ${(t / 1000).toFixed(0).padStart(7)} ms${per(t)}  ${k}`,
    );
};
console.log(`total sampled ${(total / 1000).toFixed(0)} ms${per(total)}`);
show('by package / file (self time)', byPkg, 40);
show('top functions (self time)', byFn, 50);
