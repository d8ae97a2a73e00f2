// What a test file starts or creates outside itself (processes, temp folders) is recorded here and removed when the file
// ends, whether its tests passed, failed or timed out: a timed-out test's body runs on after vitest gave up on it and
// may start a process after the file's own afterAll ran. teardown.ts (a setup file) calls `cleanUp` after every file.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Process group ids (each child leads its own), kept after the child exits: its group may live on without it. */
const groups = new Set<number>();
const folders = new Set<string>();
const hooks = new Set<() => void>();
let closed = false;

/**
 * The environment every process a test starts inherits from the runner (`scripts/test.mjs`): its marker, which lets the
 * runner find a process of this run that outlived the suite, and the run's own temp folder.
 */
export function runEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ['CP_TEST_RUN', 'TMPDIR']) if (process.env[name]) env[name] = process.env[name]!;
  return env;
}

/**
 * `spawn`, in a process group of its own (detached), so that the cleanup reaches whatever the child starts in turn
 * (npm's shell, esbuild's service, PostgreSQL's backends). Refused once the file's cleanup ran: a test that timed out
 * must not leave a process behind by starting it late.
 */
export function spawnTracked(command: string, args: readonly string[], options: SpawnOptions): ChildProcess {
  if (closed) throw new Error(`not starting ${command}: this test file has ended`);
  const child = spawn(command, args, { ...options, detached: true });
  if (child.pid) groups.add(child.pid);
  return child;
}

/** A fresh temp folder (`<prefix>XXXXXX` under the run's temp folder), removed when the file ends unless removed before. */
export function tempDir(prefix: string): string {
  if (closed) throw new Error(`not creating ${prefix}: this test file has ended`);
  const dir = mkdtempSync(join(tmpdir(), prefix));
  folders.add(dir);
  return dir;
}

/** Something else to undo when the file ends (synchronous: it also runs in the worker's `exit` handler). */
export function onCleanUp(hook: () => void): () => void {
  hooks.add(hook);
  return () => hooks.delete(hook);
}

function killGroup(group: number): void {
  try {
    process.kill(-group, 'SIGKILL');
  } catch {
    // the group is gone already
  }
}

/** A new test file begins (setup files run again for each file, also when a worker runs several): starts are allowed. */
export function beginFile(): void {
  closed = false;
}

/** Kills every tracked process group, runs the hooks and removes the temp folders; later starts are refused. */
export function cleanUp(): void {
  closed = true;
  // A group whose leader exited may still hold what the leader started: the signal goes to the group, not the pid.
  for (const group of groups) killGroup(group);
  groups.clear();
  for (const hook of hooks) {
    try {
      hook();
    } catch {
      // best effort: the next hook and the folders still get their turn
    }
  }
  hooks.clear();
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
  folders.clear();
}

// The worker may end without vitest's hooks running (an error in a hook, vitest tearing the worker down): still no
// process of ours outlives it. Only synchronous work runs here, which is all `cleanUp` does.
process.once('exit', cleanUp);
