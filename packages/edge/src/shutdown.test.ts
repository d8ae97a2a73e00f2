// exitGracefullyOnSignals in a child process (it calls process.exit): a starting service, a failed start, a signal
// during the start, a failing afterClose; no unhandled rejection and the documented exit code each time.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const SHUTDOWN = join(__dirname, '../dist/shutdown.js');

/**
 * Runs `body` with `exit` (exitGracefullyOnSignals), `log` (prints a step) and `later(ms, value, fail?)` in scope;
 * sends SIGTERM after `signalAfterMs` if given. Node's default turns an unhandled rejection into exit 1 with a stack.
 */
function scenario(body: string, signalAfterMs?: number): Promise<{ code: number | null; out: string }> {
  const script = `
    const { exitGracefullyOnSignals: exit } = require(${JSON.stringify(SHUTDOWN)});
    const log = (step) => process.stdout.write(step + '\\n');
    const logger = { info: () => {}, error: (o, m) => log('error ' + (m ?? o)) };
    const later = (ms, value, fail) => new Promise((ok, ko) => setTimeout(() => (fail ? ko(new Error(fail)) : ok(value)), ms));
    const options = { timeoutMs: 2000, graceMs: 0, logger };
    const service = { retire: () => log('retire'), close: async () => log('close') };
    process.stdout.write('ready\\n');
    ${body}
  `;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      if (signalAfterMs !== undefined && out.startsWith('ready\n') && !child.killed) {
        setTimeout(() => child.kill('SIGTERM'), signalAfterMs);
      }
    });
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.once('exit', (code) => resolve({ code, out: out.replace(/^ready\n/, '') }));
  });
}

describe('exitGracefullyOnSignals', () => {
  it('a failed start reported by its caller raises no unhandled rejection from the signal handle', async () => {
    const run = await scenario(`
      const starting = later(20, undefined, 'boom');
      exit(starting.then((s) => s), options);
      starting.catch((err) => { log('caller ' + err.message); setTimeout(() => process.exit(0), 100); });
    `);
    expect(run).toEqual({ code: 0, out: 'caller boom\n' });
  });

  it('a SIGTERM during the start retires and closes the service once it started, then afterClose, exit 0', async () => {
    const run = await scenario(
      `exit(later(400, service), { ...options, afterClose: async () => log('afterClose') }); setInterval(() => {}, 1000);`,
      50,
    );
    expect(run).toEqual({ code: 0, out: 'retire\nclose\nafterClose\n' });
  });

  it('a SIGTERM during a start that fails exits 1, without an unhandled rejection', async () => {
    const run = await scenario(
      `const starting = later(300, undefined, 'boom');
       exit(starting, options);
       setInterval(() => {}, 1000);`,
      50,
    );
    expect(run.code).toBe(1);
    expect(run.out).toMatch(/^error shutdown failed\n$/);
  });

  it('an afterClose that throws exits 1 after close', async () => {
    const run = await scenario(
      `exit(service, { ...options, afterClose: () => later(10, undefined, 'spans lost') }); setInterval(() => {}, 1000);`,
      50,
    );
    expect(run).toEqual({ code: 1, out: 'retire\nclose\nerror shutdown failed\n' });
  });
});
