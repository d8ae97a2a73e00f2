// Black-box: SIGTERM exits 0 well before SHUTDOWN_TIMEOUT_MS (idle, after a request, under load) for the embedded
// gateway, the gateway on PostgreSQL and the standalone subgraph services; reads in flight at the signal are all answered.
import { createPostgresDatabase } from '@cp/db/testing';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, PROJECT } from './support/client';
import { runEnv, spawnTracked, tempDir } from './support/leftovers';
import {
  ADMIN,
  expectCleanExit,
  freePort,
  JWT_SECRET,
  ROOT,
  spawnNode,
  startService,
  SUBGRAPH_SECRET,
  terminate,
  type Process,
} from './support/service';
import { waitFor } from './support/wait';

// A hang shows as the timeout's exit 1. The grace window is short so each stop costs little, and long enough for the
// first `/ready` probe after the signal to arrive within it while the suite's other files load the machine (at 300 ms,
// slow runs saw the listener already closed). NODE_ENV=production as deployed: Apollo installs its own signal
// handlers outside `test`, which is what hung and failed shutdowns.
const TIMEOUT_MS = 15_000;
const GRACE_MS = 1500;
const SHUTDOWN_ENV = {
  NODE_ENV: 'production',
  SHUTDOWN_TIMEOUT_MS: String(TIMEOUT_MS),
  SHUTDOWN_GRACE_MS: String(GRACE_MS),
  EMBEDDINGS: 'off',
};
const READS = 100;

type Outcome = { status: number } | { error: string };

/** Sends SIGTERM and resolves with the exit code and how long the process took to exit. */
/** One request; a refused or reset connection is an `error` (the request was dropped), anything else its status. */
async function attempt(url: string, init: RequestInit): Promise<Outcome> {
  try {
    const res = await fetch(url, init);
    await res.arrayBuffer();
    return { status: res.status };
  } catch (err) {
    return { error: String((err as { cause?: { code?: string } }).cause?.code ?? err) };
  }
}

/** Every request answered, none with a 5xx: nothing dropped. */
function dropped(outcomes: Outcome[]): Outcome[] {
  return outcomes.filter((o) => 'error' in o || o.status >= 500);
}

/** `/ready` from the signal on: the first answer that is not the 200 of before (the signal is handled asynchronously). */
async function readinessAfterSignal(origin: string): Promise<Outcome> {
  for (;;) {
    const ready = await attempt(`${origin}/ready`, {});
    if (!('status' in ready) || ready.status !== 200) return ready;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * Fires `READS` requests, sends SIGTERM `delayMs` later, polls `/ready` from then on, and waits for the exit. Idle
 * keep-alive sockets from warm-up requests are in the client's pool first, so part of the burst reuses them.
 */
async function signalUnderLoad(proc: Process, request: (i: number) => Promise<Outcome>, delayMs: number) {
  await Promise.all(Array.from({ length: 20 }, (_, i) => request(i)));
  const outcomes = Array.from({ length: READS }, (_, i) => request(i));
  await new Promise((resolve) => setTimeout(resolve, delayMs));
  const exit = terminate(proc);
  const ready = await readinessAfterSignal(new URL(proc.url).origin);
  return { outcomes: await Promise.all(outcomes), ready, exit: await exit };
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

// Three rounds on PostgreSQL, one on the embedded database (each round is a start, and PGlite starts slowly).
describe.each([
  { name: 'embedded gateway', database: 'pglite' as const, delays: [30] },
  { name: 'gateway on PostgreSQL', database: 'postgres' as const, delays: [15, 30, 45] },
])('SIGTERM: $name', ({ database, delays }) => {
  const dataDir = tempDir('cp-shutdown-');
  let databaseUrl: string | undefined;
  let drop: (() => Promise<void>) | undefined;
  let apiKey: string;
  const start = () => startService({ database, dataDir, databaseUrl, env: SHUTDOWN_ENV, startTimeoutMs: 180_000 });

  beforeAll(async () => {
    if (database === 'postgres') ({ url: databaseUrl, drop } = await createPostgresDatabase());
  });
  afterAll(async () => {
    await drop?.();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('exits 0 well before the timeout when idle', async () => {
    const service = await start();
    expectCleanExit(await terminate(service), service, TIMEOUT_MS);
  }, 240_000);

  it('exits 0 well before the timeout after one request', async () => {
    const service = await start();
    const api = new Client(service.url);
    const token = await api.login();
    apiKey = (await api.call('POST', `/app/v1${PROJECT}/api-keys`, { token, body: { name: 'shutdown reader' } })).body
      .key;
    expect(apiKey).toBeTruthy();
    expectCleanExit(await terminate(service), service, TIMEOUT_MS);
  }, 240_000);

  // Client REST reads (read cache in the pipeline's read-cache stage) and GraphQL reads (through Apollo), half each.
  it.each(delays)(
    'answers all of 100 reads in flight when SIGTERM comes %i ms after them, /ready 503, exits 0',
    async (delayMs) => {
      const service = await start();
      const token = await new Client(service.url).login();
      const read = (i: number) =>
        i % 2
          ? attempt(`${service.url}/api/v1${PROJECT}/content-types?limit=5`, { headers: { 'x-api-key': apiKey } })
          : attempt(`${service.url}/graphql`, {
              method: 'POST',
              headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
              body: JSON.stringify({
                query: '{ contentTypes(organizationId: "default", projectId: "default") { data { id } } }',
              }),
            });
      const { outcomes, ready, exit } = await signalUnderLoad(service, read, delayMs);
      expect(dropped(outcomes)).toEqual([]);
      expect(ready).toEqual({ status: 503 });
      expectCleanExit(exit, service, TIMEOUT_MS);
    },
    240_000,
  );
});

describe('SIGTERM: standalone subgraph services', () => {
  let databaseUrl: string;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    ({ url: databaseUrl, drop } = await createPostgresDatabase());
  });
  afterAll(async () => drop?.());

  const start = async (name: string) => {
    const env = {
      ...SHUTDOWN_ENV,
      DATABASE_URL: databaseUrl,
      JWT_SECRET,
      SUBGRAPH_SECRET,
      SUBGRAPH_PORT: String(await freePort()),
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: '100000',
    };
    return spawnNode(`subgraphs/${name}/dist/main.js`, env, new RegExp(`subgraph ${name} listening`));
  };

  it.each(['access', 'content', 'components', 'assets'])(
    '%s: exits 0 well before the timeout when idle',
    async (name) => {
      const service = await start(name);
      expectCleanExit(await terminate(service), service, TIMEOUT_MS);
    },
  );

  // `_service { sdl }` is what any gateway may ask anonymously: it runs through Apollo like every other operation.
  it.each(['access', 'content'])(
    '%s: answers all of 100 GraphQL reads in flight at SIGTERM, /ready 503, exits 0',
    async (name) => {
      const service = await start(name);
      const read = () =>
        attempt(service.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query: '{ _service { sdl } }' }),
        });
      const { outcomes, ready, exit } = await signalUnderLoad(service, read, 30);
      expect(dropped(outcomes)).toEqual([]);
      expect(ready).toEqual({ status: 503 });
      expectCleanExit(exit, service, TIMEOUT_MS);
    },
  );
});

describe('SIGTERM to the `npm start` path', () => {
  let databaseUrl: string;
  let drop: () => Promise<void>;
  const dataDir = tempDir('cp-shutdown-');

  beforeAll(async () => {
    ({ url: databaseUrl, drop } = await createPostgresDatabase());
  });
  afterAll(async () => {
    await drop?.();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Runs `command` until the gateway it starts listens; `gatewayPid` is the gateway's own (pino logs it). */
  async function launch(command: string, args: string[]) {
    const port = await freePort();
    const child = spawnTracked(command, args, {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        ...runEnv(),
        HOME: process.env.HOME ?? tmpdir(),
        npm_config_update_notifier: 'false',
        LOG_LEVEL: 'info',
        // The test run built everything already; a build here would rewrite dist/ under other test files.
        START_SKIP_BUILD: '1',
        ...SHUTDOWN_ENV,
        ...{
          PORT: String(port),
          DATABASE_URL: databaseUrl,
          DATA_DIR: dataDir,
          ADMIN_EMAIL: ADMIN.email,
          ADMIN_PASSWORD: ADMIN.password,
          JWT_SECRET,
        },
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const gatewayPid = () => Number(/"pid":(\d+)[^\n]*content platform listening/.exec(output)?.[1]);
    await waitFor(
      () => `${command} to start the gateway:\n${output}`,
      () => gatewayPid() > 0 || child.exitCode !== null,
      {
        timeoutMs: 90_000,
        intervalMs: 100,
      },
    );
    if (!gatewayPid()) throw new Error(`${command} did not start the gateway:\n${output}`);
    const base = `http://127.0.0.1:${port}`;
    expect(await attempt(`${base}/ready`, {})).toEqual({ status: 200 });
    return { child, exited, base, gatewayPid: gatewayPid(), output: () => output };
  }

  it('`node scripts/start.mjs`: SIGTERM to it stops the gateway and it exits 0', async () => {
    const run = await launch(process.execPath, ['scripts/start.mjs']);
    try {
      run.child.kill('SIGTERM');
      expect(await run.exited).toBe(0);
      expect(await attempt(`${run.base}/ready`, {})).toEqual({ error: 'ECONNREFUSED' });
    } finally {
      killQuietly(run.gatewayPid);
    }
  });

  it('`npm start`: SIGTERM to npm stops the gateway too (drained, "shut down"), nothing keeps serving', async () => {
    const run = await launch('npm', ['start']);
    try {
      run.child.kill('SIGTERM');
      await run.exited;
      await waitFor(
        'the gateway to shut down',
        () => /"msg":"shut down"/.test(run.output()) || !alive(run.gatewayPid),
        {
          timeoutMs: 30_000,
          intervalMs: 100,
        },
      );
      expect(run.output()).toMatch(/"msg":"shut down"/);
      expect(await attempt(`${run.base}/ready`, {})).toEqual({ error: 'ECONNREFUSED' });
    } finally {
      // Never leave an orphaned gateway serving after a failed run.
      killQuietly(run.gatewayPid);
    }
  });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
