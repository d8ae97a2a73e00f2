// A database (or other backing service) that cannot be reached is the service's 503, not an unexpected 500.
import { AppError } from './app-error';

/** Seconds a client should wait before retrying a request refused with UNAVAILABLE (`Retry-After`). */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 2;

export class UnavailableError extends AppError {
  constructor(message = 'The database is temporarily unavailable; retry shortly.') {
    super('UNAVAILABLE', message, { retryAfter: UNAVAILABLE_RETRY_AFTER_SECONDS });
  }
}

/**
 * A statement refused before it reached PostgreSQL because the database's liveness probe finds it not answering (a
 * stopped process, a network that drops packets). Its `code` is SQLSTATE 08006 (connection failure): MikroORM re-wraps
 * driver errors copying only their own properties, and the code survives that, so `unavailableErrorOf` reads it like
 * any broken connection. Its message never reaches a client (the edge answers UnavailableError's own).
 */
export class DatabaseNotAnsweringError extends Error {
  readonly code = '08006';
  constructor() {
    super('PostgreSQL does not answer its liveness probe');
    this.name = 'DatabaseNotAnsweringError';
  }
}

/**
 * Socket failures: nothing answers at the address, the connection broke, or it timed out. `UND_ERR_*`: Node's fetch
 * (undici), e.g. a standalone subgraph service that died while our gateway waited for its answer ("other side closed").
 */
const SOCKET_CODES = new Set([
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
/**
 * SQLSTATE class 08 (connection exception; 08P01 is the client's own NUL byte, see input-error.ts), 57P01-57P03
 * (the server is shutting down, crashed, or cannot accept connections yet), 57014 (a statement cancelled by the
 * statement timeout: the database is too slow to answer in time). Class 53 (out of disk, memory or connections) is
 * resource-exhaustion.ts's.
 */
const UNAVAILABLE_SQLSTATE = /^(08(?!P01)[0-9A-Z]{3}|57P0[123]|57014)$/;
/**
 * pg's and knex's own messages for a connection that broke, could not be made or had from the pool in time, or a
 * query the database did not answer within the query timeout. knex puts the statement first (`<sql> - <message>`),
 * so the message is the part after the last ` - ` (a value in the statement can't make a failure look like this).
 */
const UNAVAILABLE_MESSAGE =
  /^(Connection terminated|Client has encountered a connection error|timeout exceeded when trying to connect|Knex: Timeout acquiring a connection|Connection ended unexpectedly|Query read timeout|timeout expired$)/i;
/** The driver's own part of a message knex prefixed with the statement (`<sql> - <message>`). */
export function driverMessage(message: string): string {
  const at = message.lastIndexOf(' - ');
  return at === -1 ? message : message.slice(at + 3);
}

export function unavailableErrorOf(err: unknown): UnavailableError | undefined {
  const seen = new Set<unknown>();
  let current = err as
    | {
        code?: unknown;
        sqlState?: unknown;
        message?: unknown;
        name?: unknown;
        originalError?: unknown;
        cause?: unknown;
      }
    | undefined;
  while (current && typeof current === 'object' && !seen.has(current)) {
    seen.add(current);
    if (current instanceof UnavailableError) return current;
    const state = typeof current.sqlState === 'string' ? current.sqlState : current.code;
    if (typeof state === 'string' && (SOCKET_CODES.has(state) || UNAVAILABLE_SQLSTATE.test(state)))
      return new UnavailableError();
    if (
      current.name === 'ConnectionException' ||
      (typeof current.message === 'string' && UNAVAILABLE_MESSAGE.test(driverMessage(current.message)))
    )
      return new UnavailableError();
    current = (current.originalError ?? current.cause) as typeof current;
  }
  return undefined;
}
