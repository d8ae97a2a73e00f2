// Black-box harness: starts the real service (`node apps/gateway/dist/main.js`, what `npm start` runs) on a free port.
import { createPostgresDatabase } from '@cp/db/testing';
import { expect } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { runEnv, spawnTracked, tempDir } from './leftovers';

export const ROOT = resolve(__dirname, '../..');
export const ADMIN = { email: 'admin@example.com', password: 'correct horse battery staple' };
export const JWT_SECRET = 'test-secret-test-secret-test-secret-000';
/** Gateway <-> subgraph service principal header key; a gateway without remote subgraphs ignores it. */
/**
 * Rate limits no test meets: for services whose request count grows with the test (property tests scale with FC_RUNS);
 * a test of the limits themselves sets its own.
 */
export const UNLIMITED = { RATE_LIMIT_PER_MINUTE: '1000000', RATE_LIMIT_PER_HOUR: '10000000' };
export const SUBGRAPH_SECRET = 'subgraph-secret-subgraph-secret-000000';

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolvePort(port));
    });
  });
}

export interface Process {
  url: string;
  child: ChildProcess;
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** Spawns a Node entry point and waits until it logs `readyMessage` (pino JSON) or exits. */
export async function spawnNode(
  entry: string,
  env: Record<string, string>,
  readyMessage: RegExp,
  timeoutMs = 90_000,
): Promise<Process> {
  const child = spawnTracked(process.execPath, [join(ROOT, entry)], {
    cwd: ROOT,
    // No SIGTERM grace window (SHUTDOWN_GRACE_MS) unless a test asks: every stop() would wait it out.
    env: {
      PATH: process.env.PATH ?? '',
      ...runEnv(),
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      SHUTDOWN_GRACE_MS: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => {
      // Never leave a half-started service behind: it would hold its port and database after the test.
      child.kill('SIGKILL');
      reject(new Error(`${entry} did not start in time:\n${output}`));
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      for (const line of output.split('\n')) {
        if (!readyMessage.test(line)) continue;
        try {
          clearTimeout(timer);
          resolveUrl(JSON.parse(line).url);
        } catch {
          // not JSON yet
        }
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${entry} exited with ${code}:\n${output}`));
    });
  });
  return {
    url,
    child,
    output: () => output,
    stop: (signal = 'SIGTERM') =>
      new Promise<void>((done) => {
        if (child.exitCode !== null || child.signalCode !== null) return done();
        child.once('exit', () => done());
        child.kill(signal);
      }),
  };
}

export interface TestService extends Process {
  /** The environment the service was started with. */
  env: Record<string, string>;
  databaseUrl?: string;
  dataDir?: string;
  /** Stops the process and removes its database or data directory. */
  destroy(): Promise<void>;
}

export interface StartOptions {
  /** `postgres`: a fresh database on the local server (default); `pglite`: embedded, under a temp DATA_DIR. */
  database?: 'postgres' | 'pglite';
  /** DATA_DIR (kept afterwards); a fresh temporary one by default. */
  dataDir?: string;
  databaseUrl?: string;
  env?: Record<string, string>;
  /** How long start-up may take (first start of an embedded database on a busy machine is slow); 90 s by default. */
  startTimeoutMs?: number;
}

export async function startService(options: StartOptions = {}): Promise<TestService> {
  const port = await freePort();
  const env: Record<string, string> = {
    PORT: String(port),
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    JWT_SECRET,
    SUBGRAPH_SECRET,
    ...options.env,
  };
  let drop: (() => Promise<void>) | undefined;
  // A DATA_DIR made here is removed by destroy() (and by the file's cleanup if destroy never ran); one the caller
  // passed is the caller's.
  const ownDataDir = options.dataDir ? undefined : tempDir('cp-blackbox-');
  const dataDir = options.dataDir ?? ownDataDir!;
  env.DATA_DIR = dataDir;
  if (options.database !== 'pglite') {
    let url = options.databaseUrl;
    if (!url) {
      const db = await createPostgresDatabase();
      url = db.url;
      drop = db.drop;
    }
    env.DATABASE_URL = url;
  }
  const proc = await spawnNode('apps/gateway/dist/main.js', env, /content platform listening/, options.startTimeoutMs);
  return {
    ...proc,
    env,
    databaseUrl: env.DATABASE_URL,
    dataDir,
    async destroy() {
      await proc.stop();
      await drop?.();
      if (ownDataDir) rmSync(ownDataDir, { recursive: true, force: true });
    },
  };
}

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the linked `content-platform` bin (what `npx content-platform` runs) with these database settings
 * (`DATA_DIR`, `JWT_SECRET`, and `DATABASE_URL` unless embedded), and any other settings given (a bucket's).
 */
export function runCli(
  settings: { DATA_DIR: string; JWT_SECRET: string; DATABASE_URL?: string } & Record<string, string | undefined>,
  args: string[],
): Promise<CliRun> {
  const env = { PATH: process.env.PATH ?? '', ...runEnv(), LOG_LEVEL: 'silent', ...settings };
  if (!env.DATABASE_URL) delete env.DATABASE_URL;
  return new Promise((resolve, reject) => {
    const child = spawnTracked(join(ROOT, 'node_modules/.bin/content-platform'), args, {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/** Sends SIGTERM; resolves with the exit code and how long the process took to exit. */
export async function terminate(proc: Process): Promise<{ code: number | null; ms: number }> {
  const started = Date.now();
  const exited = new Promise<number | null>((resolve) => proc.child.once('exit', (code) => resolve(code)));
  proc.child.kill('SIGTERM');
  const code = await exited;
  return { code, ms: Date.now() - started };
}

/** A shutdown that finished its work: exit 0 within `withinMs`, without the shutdown deadline's warning. */
export function expectCleanExit(exit: { code: number | null; ms: number }, proc: Process, withinMs: number): void {
  expect(proc.output()).not.toMatch(/shutdown did not finish in time/);
  expect(exit.code).toBe(0);
  expect(exit.ms).toBeLessThan(withinMs);
}
