// Cost of metrics on the request path: the per-request metrics work (histogram observation + operation counter),
// timed in-process, as a share of one gateway request measured in the same run; plus /metrics scraped under load.
// Standalone: `node bench/operations.mjs` after `npm run build`, with the local PostgreSQL server at 127.0.0.1:5432.
import { counter, observeRequest, registry } from '@cp/metrics';
import { EventEmitter } from 'node:events';
import { createDatabase, DURATION_S, load, startBaseline, startGateway } from './lib.mjs';

const METRICS_TOKEN = 'bench-metrics-token-0123';

/** What metrics add to one request, in microseconds: 200k fake requests through observeRequest + one counter. */
function metricsWorkMicros() {
  const ops = counter('bench_operations_total', 'bench', ['operation', 'outcome']);
  const N = 200_000;
  const run = () => {
    const start = process.hrtime.bigint();
    for (let i = 0; i < N; i++) {
      const res = Object.assign(new EventEmitter(), { statusCode: 200 });
      observeRequest({ url: '/graphql', method: 'POST' }, res);
      ops.inc({ operation: 'Bench', outcome: 'success' });
      res.emit('close');
    }
    return Number(process.hrtime.bigint() - start) / 1000 / N;
  };
  run(); // warm up
  const withMetrics = run();
  // The same loop without the metrics calls: what the fake request costs by itself.
  const start = process.hrtime.bigint();
  for (let i = 0; i < N; i++) Object.assign(new EventEmitter(), { statusCode: 200 }).emit('close');
  const bare = Number(process.hrtime.bigint() - start) / 1000 / N;
  registry.removeSingleMetric('bench_operations_total');
  return Math.max(0, withMetrics - bare);
}

const db = await createDatabase();
const baseline = await startBaseline();
const gateway = await startGateway({
  DATABASE_URL: db.url,
  METRICS_TOKEN,
  EMBEDDINGS: 'off',
  RATE_LIMIT_ANONYMOUS_PER_MINUTE: '100000000',
});
try {
  const query = {
    url: `${gateway.url}/graphql`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ __typename }' }),
  };
  const base = await load('bare node:http (baseline)', { url: baseline.url });
  const plain = await load('POST /graphql {__typename}', query);
  // A scraper every 100 ms during the same load (Prometheus scrapes every 15 s: this is 150x harsher).
  let scraping = true;
  const scrapes = (async () => {
    let n = 0;
    while (scraping) {
      await fetch(`${gateway.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } }).then((r) =>
        r.text(),
      );
      n++;
      await new Promise((r) => setTimeout(r, 100));
    }
    return n;
  })();
  const scraped = await load('POST /graphql {__typename}, /metrics scraped every 100 ms', query);
  scraping = false;
  const n = await scrapes;
  const micros = metricsWorkMicros();
  const requestMicros = (1e6 / plain.rps) * 10; // 10 connections: time one request holds a connection
  console.log(
    `### Metrics cost (\`bench/operations.mjs\`)\n\n${DURATION_S} s per scenario, 10 connections, ${new Date().toISOString()}\n`,
  );
  console.log('| scenario | req/s | p50 ms | p99 ms | throughput vs baseline | vs same route unscraped |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const r of [base, plain, scraped]) {
    console.log(
      `| ${r.name} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${(r.rps / base.rps).toFixed(3)} | ${(r.rps / plain.rps).toFixed(3)} |`,
    );
  }
  console.log(
    `\nPer-request metrics work: ${micros.toFixed(2)} µs (histogram + counter), ${((micros / requestMicros) * 100).toFixed(4)} % of one request (${requestMicros.toFixed(0)} µs); ${n} scrapes during the scraped run.`,
  );
} finally {
  await gateway.stop();
  await baseline.stop();
  await db.drop();
}
