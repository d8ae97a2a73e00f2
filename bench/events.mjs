// Event fan-out benchmark: one change → N graphql-ws subscribers (optionally over two gateway replicas on one
// PostgreSQL); latency from the write's start to receipt p50/p99, delivered/expected, gateway RSS per subscriber.
//   BENCH_SUBSCRIBERS (1000), BENCH_REPLICAS (1; 2 spreads subscribers round-robin), BENCH_CHANGES (20),
//   BENCH_CLIENT_THREADS (2), BENCH_CPU_PROF (a directory: the gateways run under --cpu-prof, and the measured
//   window is printed for `node bench/profile-summary.mjs <profile> @<from>-<to>`)
import { readFileSync } from 'node:fs';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import WebSocket from 'ws';
import { cpuSecondsOf, createDatabase, login, startGateway } from './lib.mjs';

const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 1000);
const REPLICAS = Number(process.env.BENCH_REPLICAS ?? 1);
const CHANGES = Number(process.env.BENCH_CHANGES ?? 20);
/** Client threads: one thread receiving 10,000 sockets would measure itself. */
const THREADS = Number(process.env.BENCH_CLIENT_THREADS ?? 2);
const METRICS_TOKEN = 'bench-metrics-token-0123456789';
const PROJECT = '/organizations/default/projects/default';
const QUERY = 'subscription { events(projectId: "default", resourceType: "content-types") { resourceId } }';
const rssKb = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);
const percentile = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/** CPU time (user + system) of a process so far, ms, from /proc (clock ticks of 10 ms). */
const cpuMs = (pid) => cpuSecondsOf(pid) * 1000;
/** Busy and total CPU time of the whole machine so far, ms (every process: gateways, PostgreSQL, clients, others). */
const machineMs = () => {
  const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).map(Number);
  const total = ticks.reduce((a, b) => a + b, 0);
  return { busy: (total - ticks[3] - ticks[4]) * 10, total: total * 10 };
};
const PROFILE_FLAGS = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];

/** `cp_graphql_ws_subscriptions` of one gateway, or undefined where the gauge does not exist (older builds). */
async function registered(url) {
  const res = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  const line = (await res.text()).split('\n').find((l) => l.startsWith('cp_graphql_ws_subscriptions '));
  return line === undefined ? undefined : Number(line.split(' ')[1]);
}

/**
 * A bare graphql-transport-ws client (the graphql-ws client costs the bench more than the server it measures). Once
 * subscribed, it reads the TCP stream itself: receipt is timed when the bytes arrive, and `next` frames are found
 * without `ws`'s message machinery or JSON parsing (on this machine the clients share the server's two cores).
 */
function subscriber(url, token, onEvent) {
  const address = url.replace(/^http/, 'ws') + '/graphql';
  const socket = new WebSocket(address, 'graphql-transport-ws', { skipUTF8Validation: true });
  const state = { socket, received: 0, closed: undefined };
  const next = (text) => {
    const resource = /"resourceId":"([^"]+)"/.exec(text);
    if (!resource || !text.includes('"type":"next"')) return false;
    state.received++;
    return resource[1];
  };
  return new Promise((resolve, reject) => {
    const init = { type: 'connection_init', payload: { authorization: `Bearer ${token}` } };
    socket.on('open', () => socket.send(JSON.stringify(init)));
    socket.on('message', (data) => {
      const at = process.hrtime.bigint();
      const text = String(data);
      const resource = next(text);
      if (resource) return onEvent(resource, at);
      const message = JSON.parse(text);
      if (message.type === 'connection_ack') {
        socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: QUERY } }));
        readRaw(socket._socket, state, next, onEvent);
        resolve(state);
      } else if (message.type === 'error') console.error('subscription error', JSON.stringify(message.payload));
    });
    socket.on('close', (code) => (state.closed ??= code));
    socket.on('error', reject);
  });
}

/** Takes the TCP socket's bytes from `ws`: unmasked server frames, split by their headers (RFC 6455 §5.2). */
function readRaw(tcp, state, next, onEvent) {
  for (const listener of tcp.listeners('data')) tcp.removeListener('data', listener);
  let pending = Buffer.alloc(0);
  tcp.on('data', (chunk) => {
    const at = process.hrtime.bigint();
    pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
    while (pending.length >= 2) {
      const short = pending[1] & 0x7f;
      const header = short === 126 ? 4 : short === 127 ? 10 : 2;
      if (pending.length < header) break;
      const length =
        short === 126 ? pending.readUInt16BE(2) : short === 127 ? Number(pending.readBigUInt64BE(2)) : short;
      if (pending.length < header + length) break;
      const body = pending.subarray(header, header + length);
      const opcode = pending[0] & 0x0f;
      if (opcode === 8 && length >= 2) state.closed = body.readUInt16BE(0);
      const resource = opcode === 1 && next(body.toString('latin1'));
      if (resource) onEvent(resource, at);
      pending = pending.subarray(header + length);
    }
  });
}

/** One client thread: its share of the subscribers; arrivals go to the main thread in batches. */
async function clientThread({ urls, token, from, to }) {
  const clients = [];
  let batch = [];
  const flush = () => {
    parentPort.postMessage({ arrivals: batch, waiting: clients.filter((c) => c.received === 0).length });
    batch = [];
  };
  const onEvent = (id, at) => {
    if (batch.length === 0) setImmediate(flush);
    batch.push([id, Number(at)]);
  };
  // In batches, so the bench does not measure a connection storm.
  for (let i = from; i < to; i += 250) {
    const shard = Array.from({ length: Math.min(250, to - i) }, (_, j) =>
      subscriber(urls[(i + j) % urls.length], token, onEvent),
    );
    clients.push(...(await Promise.all(shard)));
  }
  parentPort.postMessage({ connected: true, waiting: clients.length });
  parentPort.on('message', () => {
    const closed = clients.filter((c) => c.closed !== undefined).length;
    const received = clients.reduce((n, c) => n + c.received, 0);
    for (const c of clients) c.socket.terminate();
    parentPort.postMessage({ closed, received });
  });
}

async function change(url, token, name) {
  const res = await fetch(`${url}/app/v1${PROJECT}/content-types`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ name, schema: { type: 'object' } }),
  });
  return (await res.json()).id;
}

async function run(gateways, token, count) {
  // Receipt times by resource id: an event may arrive before its write's response does.
  const arrivals = new Map();
  const before = gateways.map((g) => rssKb(g.pid));
  const threads = Math.min(THREADS, count);
  const waiting = new Array(threads).fill(Infinity);
  const workers = [];
  let connected = 0;
  for (let t = 0; t < threads; t++) {
    const [from, to] = [Math.floor((t * count) / threads), Math.floor(((t + 1) * count) / threads)];
    const urls = gateways.map((g) => g.url);
    const worker = new Worker(new URL(import.meta.url), { workerData: { urls, token, from, to } });
    worker.on('message', (m) => {
      if (m.connected) connected++;
      if (m.waiting !== undefined) waiting[t] = m.waiting;
      for (const [id, at] of m.arrivals ?? []) {
        if (!arrivals.has(id)) arrivals.set(id, []);
        arrivals.get(id).push(at);
      }
    });
    workers.push(worker);
  }
  while (connected < threads) await sleep(20);
  // Ready = every subscription registered (the server's gauge), then one warm-up event received by every subscriber.
  const readyBy = Date.now() + 120_000;
  for (;;) {
    const counts = await Promise.all(gateways.map((g) => registered(g.url)));
    if (counts.includes(undefined) || counts.reduce((a, b) => a + b, 0) >= count || Date.now() > readyBy) break;
    await sleep(20);
  }
  const registrationGauge = (await registered(gateways[0].url)) !== undefined;
  let warmUps = 0;
  while (waiting.some((n) => n > 0) && Date.now() < readyBy) {
    warmUps++;
    await change(gateways[0].url, token, `Warm-up ${count}-${Date.now()}`);
    const warmBy = Date.now() + 5_000;
    while (waiting.some((n) => n > 0) && Date.now() < warmBy) await sleep(5);
  }
  await sleep(500);
  const withSubscribers = gateways.map((g) => rssKb(g.pid));
  const latencies = [];
  const measured = new Set();
  // Where the CPU went during the measured changes: the gateways, this process (the clients' threads), the machine.
  const cpuBefore = { gateways: gateways.map((g) => cpuMs(g.pid)), bench: process.cpuUsage(), machine: machineMs() };
  const windowFrom = process.hrtime.bigint() / 1000n;
  for (let i = 0; i < CHANGES; i++) {
    const started = Number(process.hrtime.bigint());
    const id = await change(gateways[0].url, token, `Bench ${count}-${i}-${Date.now()}`);
    measured.add(id);
    const deadline = Date.now() + 10_000;
    while ((arrivals.get(id)?.length ?? 0) < count && Date.now() < deadline) await sleep(2);
    for (const at of arrivals.get(id) ?? []) latencies.push((at - started) / 1e6);
  }
  const windowTo = process.hrtime.bigint() / 1000n;
  const benchCpu = process.cpuUsage(cpuBefore.bench);
  const machine = machineMs();
  const cpu = {
    gatewaysMs: gateways.reduce((n, g, i) => n + cpuMs(g.pid) - cpuBefore.gateways[i], 0),
    clientsMs: (benchCpu.user + benchCpu.system) / 1000,
    machineBusyMs: machine.busy - cpuBefore.machine.busy,
    wallMs: Number(windowTo - windowFrom) / 1000,
  };
  if (PROFILE_FLAGS.length) console.error(`measured window (${count}): @${windowFrom}-${windowTo}`);
  await sleep(200);
  const ends = await Promise.all(
    workers.map((w) => new Promise((resolve) => (w.once('message', resolve), w.postMessage('stop')))),
  );
  await Promise.all(workers.map((w) => w.terminate()));
  const received = ends.reduce((n, e) => n + e.received, 0);
  const measuredReceived = [...measured].reduce((n, id) => n + arrivals.get(id).length, 0);
  const addedKb = withSubscribers.reduce((a, b) => a + b, 0) - before.reduce((a, b) => a + b, 0);
  return {
    count,
    delivered: latencies.length,
    expected: count * CHANGES,
    // Frames of measured events beyond one per subscriber (duplicates), or arriving after the 10 s deadline.
    extra: measuredReceived - latencies.length,
    closed: ends.reduce((n, e) => n + e.closed, 0),
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    rssPerSubscriberKb: addedKb / count,
    readiness: registrationGauge ? `gauge + ${warmUps} warm-up` : `${warmUps} warm-up (no gauge)`,
    received,
    cpu,
  };
}

if (!isMainThread) {
  await clientThread(workerData);
} else {
  const db = await createDatabase();
  const gateways = [];
  try {
    for (let i = 0; i < REPLICAS; i++) {
      gateways.push(await startGateway({ DATABASE_URL: db.url, METRICS_TOKEN }, { flags: PROFILE_FLAGS }));
    }
    const token = await login(gateways[0].url);
    const one = await run(gateways.slice(0, 1), token, 1);
    const many = await run(gateways, token, SUBSCRIBERS);
    const row = (r, replicas) =>
      `| ${r.count} | ${replicas} | ${r.delivered}/${r.expected} | ${r.extra} | ${r.closed} | ${r.p50.toFixed(1)} | ` +
      `${r.p99.toFixed(1)} | ${(r.p50 / one.p50).toFixed(2)} | ${r.rssPerSubscriberKb.toFixed(1)} | ${r.readiness} |`;
    console.log(
      [
        '### Event delivery over graphql-ws (publish → subscriber)',
        '',
        `${CHANGES} content-type creations, latency from the REST request start to receipt; ` +
          new Date().toISOString(),
        '',
        '| subscribers | replicas | delivered | late or duplicate | closed | p50 ms | p99 ms | p50 vs 1 subscriber | ' +
          'RSS KB/subscriber | readiness |',
        '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
        row(one, 1),
        row(many, REPLICAS),
        '',
        ...[one, many].map(
          ({ count, cpu }) =>
            `CPU during the measured changes, ${count} subscriber(s): gateways ${cpu.gatewaysMs.toFixed(0)} ms, ` +
            `bench clients ${cpu.clientsMs.toFixed(0)} ms, whole machine ${cpu.machineBusyMs.toFixed(0)} ms busy ` +
            `in ${cpu.wallMs.toFixed(0)} ms wall (2 cores: ${(2 * cpu.wallMs).toFixed(0)} ms available)`,
        ),
      ].join('\n'),
    );
  } finally {
    await Promise.all(gateways.map((g) => g.stop()));
    await db.drop();
  }
}
