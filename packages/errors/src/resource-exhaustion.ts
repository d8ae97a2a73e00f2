// A database out of disk, memory or connections (SQLSTATE class 53) is a known condition with its own answer, not a 500.
import { AppError } from './app-error';
import { driverMessage, UnavailableError } from './unavailable-error';

/** The database (or the disk under it) has no space for a write: 507, as for an upload onto a full disk. */
export class InsufficientStorageError extends AppError {
  constructor(message = 'The database has no space left to store this change; nothing was changed. Retry later.') {
    super('INSUFFICIENT_STORAGE', message);
  }
}

/**
 * SQLSTATE 53100 (disk full). PGlite runs PostgreSQL's own code, so it reports the same state, but its message is
 * matched too ("could not extend file … No space left on device"): a file layer that reports the error without the
 * code must answer alike. Only the driver's own part of it counts (a value in the statement proves nothing).
 */
const DISK_FULL_STATE = '53100';
const DISK_FULL_MESSAGE = /No space left on device/i;
/** The rest of class 53: out of memory (53200), too many connections (53300), configuration limits (53400). */
const EXHAUSTED_STATE = /^53[0-9A-Z]{3}$/;

export type Exhaustion = 'disk' | 'resources';

/** Which resource the database ran out of, wherever the failure sits in the chain of causes; undefined otherwise. */
export function exhaustionOf(err: unknown): Exhaustion | undefined {
  const seen = new Set<unknown>();
  let current = err as
    { code?: unknown; sqlState?: unknown; message?: unknown; originalError?: unknown; cause?: unknown } | undefined;
  while (current && typeof current === 'object' && !seen.has(current)) {
    seen.add(current);
    if (current instanceof InsufficientStorageError) return 'disk';
    const state = typeof current.sqlState === 'string' ? current.sqlState : current.code;
    if (state === DISK_FULL_STATE) return 'disk';
    if (typeof state === 'string' && EXHAUSTED_STATE.test(state)) return 'resources';
    if (typeof current.message === 'string' && DISK_FULL_MESSAGE.test(driverMessage(current.message))) return 'disk';
    current = (current.originalError ?? current.cause) as typeof current;
  }
  return undefined;
}

/**
 * The typed error an exhausted database stands for: 507 `INSUFFICIENT_STORAGE` for a full disk (retrying soon will not
 * help until an operator frees space), 503 `UNAVAILABLE` with `Retry-After` for memory or connections (they come back
 * as load drops). Undefined for anything else.
 */
export function exhaustionErrorOf(err: unknown): AppError | undefined {
  const kind = exhaustionOf(err);
  if (kind === 'disk') return err instanceof InsufficientStorageError ? err : new InsufficientStorageError();
  if (kind === 'resources') return new UnavailableError('The database is out of memory or connections; retry shortly.');
  return undefined;
}
