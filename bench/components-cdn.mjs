// Component create latency (compile + sandbox + schema) and CDN throughput for a 100 KB asset vs bare node:http.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { createDatabase, load, login, report, startGateway } from './lib.mjs';

const PROJECT = '/organizations/default/projects/default';
const N = Number(process.env.BENCH_CREATES ?? 40);
const source = (i) => `/** Props. */
export interface Props { /** @minLength 1 */ title: string; /** @minimum 0 */ count?: number; tags: string[] }
export function metadata() { return { title: 'Card ${i}', description: 'A card' }; }
export default function render(p: Props, children: string) { return '<div>' + p.title + children + '</div>'; }`;

const percentile = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];

async function timed(fn) {
  const start = process.hrtime.bigint();
  const res = await fn();
  if (res.status !== 201) throw new Error(`expected 201, got ${res.status}: ${await res.text()}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const db = await createDatabase();
const gateway = await startGateway({ DATABASE_URL: db.url });
const bytes = randomBytes(100 * 1024);
const bare = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': bytes.length });
  res.end(bytes);
});
await new Promise((r) => bare.listen(0, '127.0.0.1', r));
try {
  const token = await login(gateway.url);
  const json = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
  const post = (path, body) => () =>
    fetch(`${gateway.url}/app/v1${PROJECT}${path}`, { method: 'POST', headers: json, body: JSON.stringify(body) });

  const plain = [];
  const components = [];
  for (let i = 0; i < N; i++) {
    plain.push(await timed(post('/content-types', { name: `Type ${i}`, schema: { type: 'object' } })));
    components.push(await timed(post('/components', { name: `Card${i}`, type: 'view', content: source(i) })));
  }
  const row = (name, xs) => `| ${name} | ${percentile(xs, 50).toFixed(1)} | ${percentile(xs, 99).toFixed(1)} |`;
  console.log(
    [
      '### Component create latency',
      '',
      `${N} sequential creations each, ${new Date().toISOString()}`,
      '',
      '| operation | p50 ms | p99 ms |',
      '|---|---:|---:|',
      row('POST content-types (same write path, no compile) — baseline', plain),
      row('POST components (esbuild ×2 + QuickJS sandbox + Props schema)', components),
      '',
      `p50 ratio to baseline: ${(percentile(components, 50) / percentile(plain, 50)).toFixed(2)}`,
      '',
    ].join('\n'),
  );

  const form = new FormData();
  form.append('file', new Blob([bytes]), 'blob.bin');
  const upload = await fetch(`${gateway.url}/app/v1${PROJECT}/assets`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  const asset = await upload.json();
  const base = await load('bare node:http, same 100 KB (baseline)', { url: `http://127.0.0.1:${bare.address().port}` });
  const cdn = await load('CDN route, 100 KB asset', { url: asset.url });
  const cached = await load('CDN route, If-None-Match (304)', {
    url: asset.url,
    headers: { 'if-none-match': `"${asset.checksum}"` },
    expectStatus: 304,
  });
  report('CDN delivery', base, [cdn, cached]);
} finally {
  await gateway.stop();
  bare.close();
  await db.drop();
}
