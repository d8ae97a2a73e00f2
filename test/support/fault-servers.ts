// Backing services a fault test owns (Redis, NATS, PostgreSQL on spare ports), to stop and start again mid-test.
import { execFileSync, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { onCleanUp, spawnTracked, tempDir } from './leftovers';
import { freePort } from './service';

export interface FaultServer {
  url: string;
  port: number;
  /** Stops the server (SIGKILL for Redis and NATS: an outage, not a goodbye; a fast shutdown for PostgreSQL). */
  stop(): Promise<void>;
  /** Starts it again on the same port; resolves once it accepts connections. */
  start(): Promise<void>;
  /**
   * Stops its processes (SIGSTOP) without closing a connection: the kernel still accepts and keeps them, nothing
   * answers (a stalled server, or a network that drops packets silently). `thaw` lets them run on.
   */
  freeze(): void;
  thaw(): void;
  destroy(): Promise<void>;
}

/** Sends `signal` to `pid` and every process below it. */
function signalTree(pid: number, signal: NodeJS.Signals): void {
  const children = spawnSync('pgrep', ['-P', String(pid)])
    .stdout.toString()
    .split('\n')
    .filter(Boolean)
    .map(Number);
  process.kill(pid, signal);
  for (const child of children) signalTree(child, signal);
}

async function untilListening(port: number, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on ${port}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A server run as one process of ours, stopped with SIGKILL (an outage) and started again on the same port. */
export function processServer(
  url: (port: number) => string,
  command: (port: number) => [string, string[]],
  port: number,
): FaultServer {
  let child: ChildProcess | undefined;
  const server: FaultServer = {
    url: url(port),
    port,
    async start() {
      const [file, args] = command(port);
      child = spawnTracked(file, args, { stdio: 'ignore' });
      await untilListening(port);
    },
    async stop() {
      const running = child;
      child = undefined;
      if (!running || running.exitCode !== null) return;
      running.kill('SIGCONT');
      await new Promise<void>((resolve) => {
        running.once('exit', () => resolve());
        running.kill('SIGKILL');
      });
    },
    freeze: () => child?.pid && signalTree(child.pid, 'SIGSTOP'),
    thaw: () => child?.pid && signalTree(child.pid, 'SIGCONT'),
    destroy: () => server.stop(),
  };
  return server;
}

export async function startRedis(): Promise<FaultServer> {
  const port = await freePort();
  const server = processServer(
    (p) => `redis://127.0.0.1:${p}`,
    (p) => ['redis-server', ['--port', String(p), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no']],
    port,
  );
  await server.start();
  return server;
}

export async function startNats(): Promise<FaultServer> {
  const port = await freePort();
  const server = processServer(
    (p) => `nats://127.0.0.1:${p}`,
    (p) => ['nats-server', ['-a', '127.0.0.1', '-p', String(p)]],
    port,
  );
  await server.start();
  return server;
}

/** A PostgreSQL cluster of its own (initdb + pg_ctl, run as `postgres`: the server refuses to run as root). */
export async function startPostgres(): Promise<FaultServer> {
  const port = await freePort();
  const dir = tempDir('cp-fault-pg-');
  chmodSync(dir, 0o755);
  const data = join(dir, 'data');
  const owner = Number(execFileSync('id', ['-u', 'postgres']).toString());
  chownSync(dir, owner, Number(execFileSync('id', ['-g', 'postgres']).toString()));
  const asPostgres = (args: string[]) => {
    const [file, ...rest] = process.getuid?.() === owner ? args : ['runuser', '-u', 'postgres', '--', ...args];
    execFileSync(file, rest, { stdio: 'ignore' });
  };
  asPostgres(['initdb', '-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  // pg_ctl starts the server as a daemon, outside any process group of ours: if the test never reaches destroy(), the
  // file's cleanup stops it (immediately: nothing of it is kept) before its folder goes.
  const forget = onCleanUp(() => {
    try {
      server.thaw();
      asPostgres(['pg_ctl', '-D', data, '-m', 'immediate', '-w', 'stop']);
    } catch {
      // not running
    }
  });
  const server: FaultServer = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    async start() {
      const options = `-p ${port} -c listen_addresses=127.0.0.1 -k ${dir} -c fsync=off -c max_connections=60`;
      asPostgres(['pg_ctl', '-D', data, '-o', options, '-l', join(dir, 'log'), '-w', 'start']);
      await untilListening(port);
    },
    async stop() {
      asPostgres(['pg_ctl', '-D', data, '-m', 'fast', '-w', 'stop']);
    },
    // The postmaster's pid is the first line of postmaster.pid; its children are the backends and workers.
    freeze: () => signalTree(Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]), 'SIGSTOP'),
    thaw: () => signalTree(Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]), 'SIGCONT'),
    async destroy() {
      server.thaw();
      try {
        await server.stop();
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true });
      forget();
    },
  };
  await server.start();
  return server;
}
