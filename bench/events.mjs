// Issue 7 benchmark: one change → N concurrent graphql-ws subscribers; delivery latency p50/p99 and gateway memory.
import { readFileSync } from 'node:fs';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { createDatabase, login, startGateway } from './lib.mjs';

const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 1000);
const CHANGES = Number(process.env.BENCH_CHANGES ?? 20);
const PROJECT = '/organizations/default/projects/default';
const rssMb = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
const percentile = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];

async function run(url, token, pid, count) {
  const sentAt = new Map();
  const latencies = [];
  let received = 0;
  const clients = [];
  const before = rssMb(pid);
  await Promise.all(
    Array.from({ length: count }, () => {
      const client = createClient({ url: url.replace(/^http/, 'ws') + '/graphql', webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${token}` }, lazy: false, retryAttempts: 0 });
      clients.push(client);
      return new Promise((subscribed) => {
        client.on('connected', () => setTimeout(subscribed, 50));
        client.subscribe(
          { query: 'subscription { events(projectId: "default", resourceType: "content-types") { resourceId } }' },
          {
            next: ({ data }) => {
              const at = sentAt.get(data.events.resourceId);
              if (at !== undefined) latencies.push(Number(process.hrtime.bigint() - at) / 1e6);
              received++;
            },
            error: (e) => console.error('subscription error', e),
            complete: () => undefined,
          },
        );
      });
    }),
  );
  const withSubscribers = rssMb(pid);
  for (let i = 0; i < CHANGES; i++) {
    const started = process.hrtime.bigint();
    const res = await fetch(`${url}/app/v1${PROJECT}/content-types`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ name: `Bench ${count}-${i}-${Date.now()}`, schema: { type: 'object' } }),
    });
    const { id } = await res.json();
    sentAt.set(id, started);
    const deadline = Date.now() + 10_000;
    while (received < count * (i + 1) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 2));
  }
  await Promise.all(clients.map((c) => c.dispose()));
  return { count, delivered: latencies.length, expected: count * CHANGES, p50: percentile(latencies, 50), p99: percentile(latencies, 99), before, withSubscribers };
}

const db = await createDatabase();
const gateway = await startGateway({ DATABASE_URL: db.url });
try {
  const token = await login(gateway.url);
  const pid = gateway.pid;
  const one = await run(gateway.url, token, pid, 1);
  const many = await run(gateway.url, token, pid, SUBSCRIBERS);
  const row = (r) =>
    `| ${r.count} | ${r.delivered}/${r.expected} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ${(r.p50 / one.p50).toFixed(2)} | ${(r.withSubscribers - r.before).toFixed(0)} |`;
  console.log(
    [
      '### Event delivery over graphql-ws (publish → subscriber)',
      '',
      `${CHANGES} content-type creations, latency from the REST request start to receipt; ${new Date().toISOString()}`,
      '',
      '| subscribers | delivered | p50 ms | p99 ms | p50 vs 1 subscriber | gateway RSS added by the subscribers, MB |',
      '|---:|---:|---:|---:|---:|---:|',
      row(one),
      row(many),
    ].join('\n'),
  );
} finally {
  await gateway.stop();
  await db.drop();
}
