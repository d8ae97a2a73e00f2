// Soak benchmark: the real gateway under a steady mixed load for minutes; samples RSS and V8 heap, fits their growth per
// hour after a warm-up, checks that every event a write produced reached every long-lived subscriber.
// Standalone: `node bench/soak.mjs [--embedded]` after `npm run build` (SOAK_MINUTES=10, SOAK_RPS=100, SOAK_WARMUP_S=120,
// SOAK_HEAP_BOUND_MB_PER_H=60, SOAK_EMBEDDINGS=off). Not part of `npm run bench` unless asked: `node bench/run.mjs soak`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { PROJECT, seedPublished, startReadGateway } from './client-reads-lib.mjs';
import { createDatabase, freePort } from './lib.mjs';

const MINUTES = Number(process.env.SOAK_MINUTES ?? 10);
const RPS = Number(process.env.SOAK_RPS ?? 100);
const WARMUP_S = Math.min(Number(process.env.SOAK_WARMUP_S ?? 120), (MINUTES * 60) / 2);
// 60 MB/h: after a full GC the live heap moves by a few MB from sample to sample (requests in flight, caches), which
// leaves the slope fitted over 8 minutes of samples a noise of about ±20 MB/h; a real leak of 60 MB/h is 1.4 GB a
// day, enough to exhaust a 1-2 GB container within a day.
const HEAP_BOUND = Number(process.env.SOAK_HEAP_BOUND_MB_PER_H ?? 60);
const EMBEDDED = process.argv.includes('--embedded') || process.env.SOAK_DATABASE === 'embedded';
const SAMPLE_MS = 10_000; // fitted; every third one is printed
const PRINT_EVERY = 3;
// Each sample first runs a full GC through the inspector, so the heap read is what is still reachable, not V8's
// sawtooth (heap used swings between about 70 and 250 MB between major GCs under this load). SOAK_FORCE_GC=0: raw.
const FORCE_GC = process.env.SOAK_FORCE_GC !== '0';
const MAX_IN_FLIGHT = 64; // open loop, but a stalled service must not pile up unbounded requests in the bench itself
const WS_SUBSCRIBERS = 3;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const pick = (xs) => xs[Math.floor(Math.random() * xs.length)];
const mb = (bytes) => bytes / 1024 / 1024;

/** Request outcomes per kind: ok, 4xx (reported), 5xx and connection errors (fail the run). */
const stats = new Map();
const failures = [];
function record(kind, outcome, detail, ms) {
  const s = stats.get(kind) ?? stats.set(kind, { ok: 0, c4xx: 0, c5xx: 0, conn: 0, ms: [] }).get(kind);
  s[outcome]++;
  if (ms !== undefined) s.ms.push(ms);
  if (outcome !== 'ok' && failures.length < 20) failures.push(`${kind}: ${detail}`);
}
const percentile = (xs, p) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? NaN;
const total = (field) => [...stats.values()].reduce((n, s) => n + s[field], 0);

async function call(kind, url, { method = 'GET', headers = {}, body } = {}) {
  let res;
  const started = performance.now();
  try {
    res = await fetch(url, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (e) {
    record(kind, 'conn', `${method} ${url}: ${e.cause?.code ?? e.name} ${e.message}`);
    return undefined;
  }
  const text = await res.text().catch((e) => (record(kind, 'conn', `body: ${e.message}`), undefined));
  if (text === undefined) return undefined;
  const ms = performance.now() - started;
  if (res.status >= 500) record(kind, 'c5xx', `${method} ${url}: ${res.status} ${text.slice(0, 300)}`, ms);
  else if (res.status >= 400) record(kind, 'c4xx', `${method} ${url}: ${res.status} ${text.slice(0, 300)}`, ms);
  else {
    record(kind, 'ok', undefined, ms);
    return text ? JSON.parse(text) : {};
  }
  return undefined;
}

/** An SSE reader of the admin event stream: counts distinct event ids; `close()` aborts it. */
function sseSubscriber(url, token, onEvent) {
  const abort = new AbortController();
  const ids = new Set();
  let resolveConnected;
  const connected = new Promise((r) => (resolveConnected = r));
  const done = (async () => {
    const res = await fetch(`${url}/app/v1${PROJECT}/events`, {
      headers: { accept: 'text/event-stream', authorization: `Bearer ${token}` },
      signal: abort.signal,
    });
    if (res.status !== 200) throw new Error(`SSE: ${res.status}`);
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of res.body) {
      buffer += decoder.decode(chunk, { stream: true });
      let end;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const message = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (message.startsWith(': connected')) resolveConnected();
        const data = /^data: (.*)$/m.exec(message);
        if (data) {
          const { id } = JSON.parse(data[1]);
          ids.add(id);
          onEvent?.(id);
        }
      }
    }
  })().catch((e) => {
    if (!abort.signal.aborted) throw e;
  });
  return { ids, connected, done, close: () => abort.abort() };
}

/** A graphql-ws subscriber to every event of the project. */
function wsSubscriber(url, token) {
  const ids = new Set();
  const errors = [];
  const client = createClient({
    url: url.replace(/^http/, 'ws') + '/graphql',
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${token}` },
    lazy: false,
    retryAttempts: 0,
  });
  const connected = new Promise((resolve) => client.on('connected', () => setTimeout(resolve, 100)));
  client.subscribe(
    { query: 'subscription { events(projectId: "default") { id type } }' },
    { next: ({ data }) => ids.add(data.events.id), error: (e) => errors.push(e), complete: () => undefined },
  );
  return { ids, errors, connected, close: () => client.dispose() };
}

/** The ids of every event of the project, oldest first (the admin JSON event list, page by page). */
async function eventLog(url, token) {
  const ids = [];
  let key;
  for (;;) {
    const query = new URLSearchParams({ limit: '100', ...(key ? { lastKey: key } : {}) });
    const page = await call('event log', `${url}/app/v1${PROJECT}/events?${query}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    if (!page) throw new Error('event log read failed');
    ids.push(...page.data.map((e) => e.id));
    if (!page.pagination.lastKey) return ids;
    key = page.pagination.lastKey;
  }
}

/** Prometheus text → the two memory gauges this soak follows. */
async function memoryMetrics(metricsUrl) {
  const text = await (await fetch(metricsUrl)).text();
  const value = (name) => Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1]);
  const oldSpace = Number(/^nodejs_heap_space_size_used_bytes\{space="old"\} (\S+)/m.exec(text)?.[1]);
  return { heapUsed: value('nodejs_heap_size_used_bytes'), heapTotal: value('nodejs_heap_size_total_bytes'), oldSpace };
}

/** A DevTools protocol session on the service's inspector port, used only to run a full GC before a sample. */
async function inspector(port) {
  const [target] = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
  const socket = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => (socket.once('open', resolve), socket.once('error', reject)));
  const pending = new Map();
  let next = 0;
  socket.on('message', (m) => {
    const { id } = JSON.parse(m);
    pending.get(id)?.();
    pending.delete(id);
  });
  return {
    collectGarbage: () =>
      new Promise((resolve) => {
        pending.set(++next, resolve);
        socket.send(JSON.stringify({ id: next, method: 'HeapProfiler.collectGarbage' }));
      }),
    close: () => socket.close(),
  };
}

/** Least-squares slope of y over t (seconds), in units per hour. */
function slopePerHour(points) {
  const n = points.length;
  if (n < 2) return NaN;
  const mt = points.reduce((s, p) => s + p.t, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  const num = points.reduce((s, p) => s + (p.t - mt) * (p.y - my), 0);
  const den = points.reduce((s, p) => s + (p.t - mt) ** 2, 0);
  return (num / den) * 3600;
}

/** The load mix: weighted operations, each one request (writes pick an idle entry so no two race on it). */
function operations(url, seeded) {
  const client = { 'x-api-key': seeded.key };
  const admin = { authorization: `Bearer ${seeded.token}` };
  const app = `${url}/app/v1${PROJECT}`;
  const api = `${url}/api/v1${PROJECT}`;
  const live = [...seeded.ids]; // entries this bench may update, publish or delete
  const busy = new Set();
  const tags = [];
  let n = 0;
  const dirty = new Set(); // entries with changes to publish (publishing a published entry is a 409)
  const takeEntry = (from = live) => {
    const idle = [...from].filter((id) => !busy.has(id));
    const id = idle.length ? pick(idle) : undefined;
    if (id) busy.add(id);
    return id;
  };
  const W3 = (limit) => ({
    query: `{ contents(organizationId: "default", projectId: "default", limit: ${limit}) { data { id name version content } } }`,
  });
  const writes = { events: 0 };
  const wrote = (result) => (result ? writes.events++ : undefined);
  const ops = [
    // Client reads: the same URL again and again (cache hits between writes) and a bounded set of varying ones (misses).
    [20, 'client list (hit)', () => call('client list (hit)', `${api}/content?limit=20`, { headers: client })],
    [
      8,
      'client list (miss)',
      () =>
        call(
          'client list (miss)',
          `${api}/content?limit=${1 + Math.floor(Math.random() * 50)}&tags=t${Math.floor(Math.random() * 5)}`,
          { headers: client },
        ),
    ],
    [
      15,
      'client entry',
      () => call('client entry', `${api}/content/${pick(seeded.ids)}/resolved`, { headers: client }),
    ],
    [
      10,
      'client GraphQL (hit)',
      () => call('client GraphQL (hit)', `${url}/graphql`, { method: 'POST', headers: client, body: W3(20) }),
    ],
    [
      5,
      'client GraphQL (miss)',
      () =>
        call('client GraphQL (miss)', `${url}/graphql`, {
          method: 'POST',
          headers: client,
          body: W3(1 + Math.floor(Math.random() * 50)),
        }),
    ],
    [5, 'admin list', () => call('admin list', `${app}/content?limit=20`, { headers: admin })],
    [
      6,
      'D2 search',
      () =>
        call('D2 search', `${app}/content/search`, {
          method: 'POST',
          headers: admin,
          body: { filter: { name: { like: `%Soak ${Math.floor(Math.random() * 100)}%` } }, limit: 20 },
        }),
    ],
    // Admin writes: every successful one records exactly one event.
    [
      5,
      'create content',
      async () => {
        const created = await call('create content', `${app}/content`, {
          method: 'POST',
          headers: admin,
          body: {
            typeId: seeded.typeId,
            name: `Soak ${n++}`,
            content: { title: `Soak ${n}`, body: 'Soak body. '.repeat(50), tags: ['soak'] },
          },
        });
        if (created) {
          writes.events++;
          live.push(created.id);
          dirty.add(created.id);
        }
      },
    ],
    [
      6,
      'update content',
      async () => {
        const id = takeEntry();
        if (!id) return;
        const updated = await call('update content', `${app}/content/${id}`, {
          method: 'PUT',
          headers: admin,
          body: { content: { title: `Updated ${n++}`, body: 'Changed. '.repeat(60), tags: ['news', 't1'] } },
        });
        if (updated) {
          writes.events++;
          dirty.add(id);
        }
        busy.delete(id);
      },
    ],
    [
      6,
      'publish content',
      async () => {
        const id = takeEntry(dirty);
        if (!id) return;
        const published = await call('publish content', `${app}/content/${id}/publish`, {
          method: 'POST',
          headers: admin,
        });
        if (published) {
          writes.events++;
          dirty.delete(id);
        }
        busy.delete(id);
      },
    ],
    [
      // Deletes keep the live set near its seeded size, so the database grows only by versions and events.
      4,
      'delete content',
      async () => {
        if (live.length <= seeded.ids.length) return;
        const id = takeEntry();
        if (!id) return;
        if (seeded.ids.includes(id)) return void busy.delete(id);
        const deleted = await call('delete content', `${app}/content/${id}`, { method: 'DELETE', headers: admin });
        if (deleted) {
          writes.events++;
          live.splice(live.indexOf(id), 1);
          dirty.delete(id);
        }
        busy.delete(id);
      },
    ],
    [
      3,
      'tags',
      async () => {
        if (tags.length > 10) {
          const id = tags.shift();
          wrote(await call('tags', `${app}/tags/${id}`, { method: 'DELETE', headers: admin }));
        } else {
          const tag = await call('tags', `${app}/tags`, {
            method: 'POST',
            headers: admin,
            body: { name: `soak-${n++}-${Date.now()}` },
          });
          if (tag) {
            writes.events++;
            tags.push(tag.id);
          }
        }
      },
    ],
    [2, 'client tags', () => call('client tags', `${api}/tags`, { headers: client })],
  ];
  const weight = ops.reduce((s, [w]) => s + w, 0);
  return {
    writes,
    next() {
      let r = Math.random() * weight;
      for (const [w, , run] of ops) if ((r -= w) < 0) return run;
      return ops[0][2];
    },
  };
}

// --- run ---
const db = EMBEDDED ? undefined : await createDatabase();
const dataDir = mkdtempSync(join(tmpdir(), 'cp-bench-soak-'));
const metricsPort = await freePort();
const inspectPort = await freePort();
if (FORCE_GC) process.env.SERVICE_FLAGS = `${process.env.SERVICE_FLAGS ?? ''} --inspect=127.0.0.1:${inspectPort}`;
const service = await startReadGateway({
  DATA_DIR: dataDir,
  METRICS_PORT: String(metricsPort),
  EMBEDDINGS: process.env.SOAK_EMBEDDINGS ?? 'off',
  ...(db ? { DATABASE_URL: db.url } : {}),
});
const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
let exitCode = 0;
let gc;
try {
  gc = FORCE_GC ? await inspector(inspectPort) : undefined;
  const seededBase = await seedPublished(service.url);
  // seedPublished returns one id; the ids and type are read back so writes can use them.
  const admin = { authorization: `Bearer ${seededBase.token}` };
  const list = await call('seed', `${service.url}/app/v1${PROJECT}/content?limit=100`, { headers: admin });
  const seeded = { ...seededBase, ids: list.data.map((e) => e.id), typeId: list.data[0].typeId };

  // Long-lived subscribers connect before the log is read, so each of them sees every event after it.
  const sse = sseSubscriber(service.url, seeded.token);
  const ws = Array.from({ length: WS_SUBSCRIBERS }, () => wsSubscriber(service.url, seeded.token));
  void sse.done.catch((e) => record('long-lived SSE', 'conn', e.message));
  await Promise.all([sse.connected, ...ws.map((w) => w.connected)]);
  const baseIds = new Set(await eventLog(service.url, seeded.token));
  const mix = operations(service.url, seeded);

  console.log(
    `soak: ${EMBEDDED ? 'embedded (PGlite)' : 'PostgreSQL'}, ${MINUTES} min at ${RPS} req/s, warm-up ${WARMUP_S} s, heap bound ${HEAP_BOUND} MB/h, ` +
      `${WS_SUBSCRIBERS} graphql-ws + 1 SSE long-lived subscribers`,
  );
  const began = performance.now();
  const elapsed = () => (performance.now() - began) / 1000;
  const samples = [];
  let inFlight = 0;
  let deferred = 0;
  let churn = 0;
  let stopping = false;

  const sample = async () => {
    await gc?.collectGarbage();
    const m = await memoryMetrics(metricsUrl);
    const s = {
      t: elapsed(),
      rss: service.rssMb(),
      heap: mb(m.heapUsed),
      old: mb(m.oldSpace),
      heapTotal: mb(m.heapTotal),
      requests: total('ok') + total('c4xx') + total('c5xx') + total('conn'),
      errors: total('c5xx') + total('conn'),
      c4xx: total('c4xx'),
    };
    samples.push(s);
    return s;
  };
  const row = (s) =>
    `| ${(s.t / 60).toFixed(1)} | ${s.rss.toFixed(0)} | ${s.heap.toFixed(1)} | ${s.old.toFixed(1)} | ${s.heapTotal.toFixed(0)} | ${s.requests} | ${s.c4xx} | ${s.errors} |`;
  const header =
    '| minute | RSS MB | heap used MB | old space MB | heap total MB | requests | 4xx | 5xx + connection errors |\n|---:|---:|---:|---:|---:|---:|---:|---:|';
  const printed = [];
  const print = (s) => (printed.push(row(s)), console.log(row(s)));
  console.log(header);
  print(await sample());

  // Churn: every 5 s one graphql-ws subscriber and one SSE stream connect, stay a few seconds, and leave.
  const churner = (async () => {
    while (!stopping) {
      await sleep(5_000);
      if (stopping) break;
      churn++;
      const w = wsSubscriber(service.url, seeded.token);
      const s = sseSubscriber(service.url, seeded.token);
      await Promise.race([Promise.all([w.connected, s.connected]), sleep(10_000)]);
      await sleep(1_000 + Math.random() * 3_000);
      await w.close();
      s.close();
      await s.done.catch((e) => record('churn SSE', 'conn', e.message));
      if (w.errors.length) record('churn graphql-ws', 'conn', String(w.errors[0]?.message ?? w.errors[0]));
    }
  })();

  const sampler = (async () => {
    for (let i = 1; !stopping; i++) {
      await sleep(SAMPLE_MS);
      if (stopping) break;
      const s = await sample();
      if (i % PRINT_EVERY === 0) print(s);
    }
  })();

  // Load: a 10 ms tick issues the requests due by then (open loop at RPS, capped in flight).
  const end = MINUTES * 60;
  let issued = 0;
  while (elapsed() < end) {
    const due = Math.floor(elapsed() * RPS) - issued;
    for (let i = 0; i < due; i++) {
      issued++;
      if (inFlight >= MAX_IN_FLIGHT) {
        deferred++;
        continue;
      }
      inFlight++;
      mix
        .next()()
        .finally(() => inFlight--);
    }
    await sleep(10);
  }
  stopping = true;
  while (inFlight > 0) await sleep(20);
  await Promise.all([churner, sampler]);
  const last = await sample();
  print(last);

  // Delivery: the event log since the start against what each long-lived subscriber received.
  const log = (await eventLog(service.url, seeded.token)).filter((id) => !baseIds.has(id));
  const logSet = new Set(log);
  const deadline = Date.now() + 30_000;
  const complete = (ids) => log.every((id) => ids.has(id));
  while (Date.now() < deadline && ![sse.ids, ...ws.map((w) => w.ids)].every(complete)) await sleep(200);
  const subscribers = [['SSE', sse.ids], ...ws.map((w, i) => [`graphql-ws ${i + 1}`, w.ids])].map(([name, ids]) => ({
    name,
    received: [...ids].filter((id) => logSet.has(id)).length,
    extra: [...ids].filter((id) => !logSet.has(id) && !baseIds.has(id)).length,
  }));
  sse.close();
  await Promise.all(ws.map((w) => w.close()));

  const after = samples.filter((s) => s.t >= WARMUP_S);
  const rssSlope = slopePerHour(after.map((s) => ({ t: s.t, y: s.rss })));
  const heapSlope = slopePerHour(after.map((s) => ({ t: s.t, y: s.heap })));
  const oldSlope = slopePerHour(after.map((s) => ({ t: s.t, y: s.old })));
  const seconds = last.t;
  const lines = [
    '',
    `### Soak (bench/soak.mjs), ${EMBEDDED ? 'embedded (PGlite)' : 'PostgreSQL'}, ${MINUTES} min, ${new Date().toISOString()}`,
    '',
    `Target ${RPS} req/s; achieved ${(last.requests / seconds).toFixed(1)} req/s (${last.requests} requests, ${deferred} not sent because ${MAX_IN_FLIGHT} were in flight).`,
    `Subscribers: ${WS_SUBSCRIBERS} graphql-ws and 1 SSE for the whole run; ${churn} churn rounds (one graphql-ws + one SSE each).`,
    '',
    header,
    ...printed,
    '',
    '| request kind | ok | 4xx | 5xx | connection errors | p50 ms | p99 ms |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...[...stats]
      .filter(([k]) => k !== 'seed' && k !== 'event log')
      .map(
        ([k, s]) =>
          `| ${k} | ${s.ok} | ${s.c4xx} | ${s.c5xx} | ${s.conn} | ${percentile(s.ms, 50).toFixed(0)} | ${percentile(s.ms, 99).toFixed(0)} |`,
      ),
    '',
    `Events: ${mix.writes.events} successful writes (one event each), ${log.length} in the event log after the start.`,
    '',
    '| subscriber | received | of the log | not in the log |',
    '|---|---:|---:|---:|',
    ...subscribers.map((s) => `| ${s.name} | ${s.received} | ${log.length} | ${s.extra} |`),
    '',
    `Memory, least-squares slope over the ${after.length} samples (every ${SAMPLE_MS / 1000} s${FORCE_GC ? ', each after a full GC' : ''}) after the ${WARMUP_S} s warm-up:`,
    `RSS ${samples[0].rss.toFixed(0)} → ${last.rss.toFixed(0)} MB, **${rssSlope.toFixed(1)} MB/h**; ` +
      `V8 heap used ${samples[0].heap.toFixed(1)} → ${last.heap.toFixed(1)} MB, **${heapSlope.toFixed(1)} MB/h** (bound ${HEAP_BOUND} MB/h); ` +
      `old space ${samples[0].old.toFixed(1)} → ${last.old.toFixed(1)} MB, ${oldSlope.toFixed(1)} MB/h.`,
  ];
  console.log(lines.join('\n'));

  const problems = [];
  if (total('c5xx') + total('conn') > 0) problems.push(`${total('c5xx')} 5xx and ${total('conn')} connection errors`);
  if (log.length !== mix.writes.events)
    problems.push(`${mix.writes.events} writes but ${log.length} events in the log`);
  for (const s of subscribers)
    if (s.received !== log.length) problems.push(`${s.name} received ${s.received} of ${log.length} events`);
  if (ws.some((w) => w.errors.length))
    problems.push(
      `graphql-ws subscriber errors: ${ws
        .flatMap((w) => w.errors)
        .map((e) => e.message ?? e)
        .join('; ')}`,
    );
  if (!(heapSlope <= HEAP_BOUND)) problems.push(`heap slope ${heapSlope.toFixed(1)} MB/h above ${HEAP_BOUND} MB/h`);
  if (failures.length) console.log(`\nFirst failures:\n${failures.map((f) => `- ${f}`).join('\n')}`);
  if (problems.length) {
    console.log(`\nFAILED: ${problems.join('; ')}`);
    exitCode = 1;
  } else console.log('\nPASSED');
} finally {
  gc?.close();
  await service.stop();
  await db?.drop();
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(exitCode);
