// Cost of tracing: the same gateway with OTEL_EXPORTER_OTLP_ENDPOINT unset and set (exporting to an
// OTLP sink in this process), alternating runs; plus what the disabled path still does per remote subgraph fetch.
// Standalone: `node bench/tracing.mjs` after `npm run build`, with the local PostgreSQL server at 127.0.0.1:5432.
import { context, propagation, trace } from '@opentelemetry/api';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createDatabase, DURATION_S, load, login, startBaseline, startGateway } from './lib.mjs';

const PROJECT = '/organizations/default/projects/default';
const LIST_QUERY = `{ contentTypes(organizationId: "default", projectId: "default") { data { id name status createdAt createdBy { email } } } }`;

/** An OTLP/HTTP collector that accepts and drops everything, counting spans' requests and bytes. */
async function startSink() {
  const stats = { requests: 0, bytes: 0 };
  const server = createServer((req, res) => {
    req.on('data', (c) => (stats.bytes += c.length));
    req.on('end', () => {
      stats.requests++;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${server.address().port}`, stats, stop: () => new Promise((r) => server.close(r)) };
}

/** What the disabled path does per remote subgraph fetch (no provider registered): a no-op span and an empty inject. */
function disabledWorkMicros() {
  const tracer = trace.getTracer('bench');
  const N = 200_000;
  const headers = new Map();
  const carrier = { set: (h, k, v) => h.set(k, v) };
  const run = () => {
    const start = process.hrtime.bigint();
    for (let i = 0; i < N; i++) {
      tracer.startActiveSpan('subgraph content', (span) => {
        propagation.inject(context.active(), headers, carrier);
        span.end();
      });
    }
    return Number(process.hrtime.bigint() - start) / 1000 / N;
  };
  run();
  return run();
}

const rssMb = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;

const db = await createDatabase();
const baseline = await startBaseline();
const sink = await startSink();
const common = { DATABASE_URL: db.url, EMBEDDINGS: 'off', CACHE: 'off' };
const off = await startGateway(common);
const on = await startGateway({ ...common, OTEL_EXPORTER_OTLP_ENDPOINT: sink.url });
try {
  const token = await login(off.url);
  for (let i = 0; i < 20; i++) {
    const res = await fetch(`${off.url}/app/v1${PROJECT}/content-types`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ name: `Traced ${i}`, schema: { type: 'object' } }),
    });
    if (res.status !== 201) throw new Error(`seed failed: ${res.status}`);
  }
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
  const gql = (url, query) => ({ url: `${url}/graphql`, method: 'POST', headers, body: JSON.stringify({ query }) });

  const base = await load('bare node:http (baseline)', { url: baseline.url });
  // Alternating off/on, three pairs per query: the spread between pairs is this machine's noise; the median is the result.
  const ROUNDS = 3;
  const pairs = [];
  const medians = [];
  for (const [label, query] of [
    ['{ __typename } (no database)', '{ __typename }'],
    ['list of 20 + createdBy (2 subgraphs, in-process, database)', LIST_QUERY],
  ]) {
    const ratios = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const a = await load(`${label}, tracing off #${round}`, gql(off.url, query));
      const b = await load(`${label}, tracing on #${round}`, gql(on.url, query));
      pairs.push([a, b]);
      ratios.push(b.rps / a.rps);
    }
    medians.push([label, ratios.sort((x, y) => x - y)[Math.floor(ROUNDS / 2)]]);
  }
  const rss = { off: rssMb(off.pid), on: rssMb(on.pid) };
  const micros = disabledWorkMicros();

  console.log(
    `### Tracing cost (\`bench/tracing.mjs\`)\n\n${DURATION_S} s per scenario, 10 connections, ${new Date().toISOString()}\n`,
  );
  console.log('| scenario | req/s | p50 ms | p99 ms | throughput vs baseline | on ÷ off (same pair) |');
  console.log('|---|---:|---:|---:|---:|---:|');
  console.log(`| ${base.name} | ${base.rps.toFixed(0)} | ${base.p50} | ${base.p99} | 1.000 | |`);
  for (const [a, b] of pairs) {
    console.log(`| ${a.name} | ${a.rps.toFixed(0)} | ${a.p50} | ${a.p99} | ${(a.rps / base.rps).toFixed(3)} | |`);
    console.log(
      `| ${b.name} | ${b.rps.toFixed(0)} | ${b.p50} | ${b.p99} | ${(b.rps / base.rps).toFixed(3)} | ${(b.rps / a.rps).toFixed(3)} |`,
    );
  }
  for (const [label, ratio] of medians) console.log(`\nMedian on ÷ off, ${label}: **${ratio.toFixed(3)}**`);
  console.log(`\nGateway RSS after the runs: off ${rss.off.toFixed(0)} MB, on ${rss.on.toFixed(0)} MB.`);
  console.log(`OTLP sink received ${sink.stats.requests} export requests, ${(sink.stats.bytes / 1e6).toFixed(1)} MB.`);
  console.log(`Disabled path per remote subgraph fetch (no-op span + inject): ${micros.toFixed(3)} µs.`);
} finally {
  await Promise.all([off.stop(), on.stop(), baseline.stop(), sink.stop()]);
  await db.drop();
}
