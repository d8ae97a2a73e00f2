// One process at a time opens the embedded database: an O_EXCL lock file holding the owner's pid, kept while it runs.
import { closeSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';

/** Another process owns pgdata: two processes writing it at once lose writes the owner confirmed. */
export class DataDirInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(
      `The embedded database under ${dataDir} is in use by process ${pid} (a running service or command); ` +
        'it allows one process at a time. Stop that process first, or work through the running service.',
    );
    this.name = 'DataDirInUseError';
  }
}

export interface DataLock {
  release(): void;
}

/** A breaker that died mid-recovery leaves its marker; after this long another may take over. */
const BREAKER_STALE_MS = 10_000;

/**
 * Takes `path` for this process, or throws DataDirInUseError naming the live owner. A lock whose pid is dead (the
 * owner was killed) is taken over; two processes recovering at once serialise on a second O_EXCL marker, so only
 * one of them removes the dead owner's file and the other then finds the new owner alive.
 */
export function acquireDataLock(path: string, dataDir: string): DataLock {
  for (let attempt = 0; ; attempt++) {
    if (tryCreate(path)) break;
    const owner = ownerOf(path);
    // This very process counts as alive too: opening the directory twice in one process is the same mistake.
    if (owner !== undefined && alive(owner)) throw new DataDirInUseError(dataDir, owner);
    if (attempt >= 5) throw new DataDirInUseError(dataDir, owner ?? 0);
    breakStale(path, owner);
  }
  const release = () => {
    process.removeListener('exit', release);
    if (ownerOf(path) === process.pid) rmSync(path, { force: true });
  };
  // A crash or process.exit() without close() still frees the directory; SIGKILL leaves a dead pid, recovered above.
  process.once('exit', release);
  return { release };
}

function tryCreate(path: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try {
    writeSync(fd, `${process.pid}\n`);
  } finally {
    closeSync(fd);
  }
  return true;
}

/** The pid in the lock file; undefined when it is gone or still being written (empty). */
function ownerOf(path: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(path, 'utf8'), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // exists, owned by another user
  }
}

function breakStale(path: string, deadOwner: number | undefined) {
  const breaker = `${path}.break`;
  try {
    if (Date.now() - statSync(breaker).mtimeMs > BREAKER_STALE_MS) rmSync(breaker, { force: true });
  } catch {
    // no breaker marker
  }
  if (!tryCreate(breaker)) {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50); // another process is recovering: let it finish
    return;
  }
  try {
    // Still the same dead owner (not a lock a faster process has just taken)? An empty file is a writer that died
    // between create and write, or one writing now: give it a moment before judging.
    const now = ownerOf(path);
    if (now === undefined && deadOwner === undefined) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
    if (ownerOf(path) === deadOwner && (deadOwner === undefined || !alive(deadOwner))) rmSync(path, { force: true });
  } finally {
    rmSync(breaker, { force: true });
  }
}
