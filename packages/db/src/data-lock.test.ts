// The embedded data lock admits one live process: a second opener is refused, a dead owner's lock is taken over once.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { acquireDataLock, DataDirInUseError } from './data-lock';

const dir = mkdtempSync(join(tmpdir(), 'cp-data-lock-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A pid that belonged to a process which has exited. */
const deadPid = () => spawnSync(process.execPath, ['-e', '0']).pid!;

/** Child processes racing for the lock; each holds it for a moment and reports whether it got it. */
function race(path: string, n: number): Promise<string[]> {
  const lockModule = resolve(__dirname, '../dist/data-lock.js');
  const script = `try { require(${JSON.stringify(lockModule)}).acquireDataLock(${JSON.stringify(path)}, 'd'); console.log('won'); setTimeout(() => {}, 1500); } catch (e) { console.log(e.name); }`;
  return Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<string>((done) => {
          const child = spawn(process.execPath, ['-e', script]);
          let out = '';
          child.stdout.on('data', (c: Buffer) => (out += c.toString()));
          child.once('exit', () => done(out.trim()));
        }),
    ),
  );
}

describe('data lock', () => {
  it('refuses a second opener, even in the same process, until released', () => {
    const path = join(dir, 'a.lock');
    const lock = acquireDataLock(path, dir);
    expect(readFileSync(path, 'utf8').trim()).toBe(String(process.pid));
    expect(() => acquireDataLock(path, dir)).toThrow(DataDirInUseError);
    lock.release();
    acquireDataLock(path, dir).release();
  });

  it('takes over the lock of a dead process, and only one of several racing processes gets it', async () => {
    for (let round = 0; round < 4; round++) {
      const path = join(dir, `stale-${round}.lock`);
      writeFileSync(path, `${deadPid()}\n`);
      const results = await race(path, 4);
      expect(
        results.filter((r) => r === 'won'),
        results.join(','),
      ).toHaveLength(1);
      expect(
        results.filter((r) => r !== 'won').every((r) => r === 'DataDirInUseError'),
        results.join(','),
      ).toBe(true);
    }
    const path = join(dir, 'stale-mine.lock');
    writeFileSync(path, `${deadPid()}\n`);
    acquireDataLock(path, dir).release();
  }, 60_000);
});
