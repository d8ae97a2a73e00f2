// Keeps MikroORM's knex pool off connections that will never answer: refuses at once while the liveness probe finds
// the database not answering, and drops a connection as soon as a statement on it timed out on the client.
import { DatabaseNotAnsweringError } from '@cp/errors';
import type pg from 'pg';
import type { DatabaseLiveness } from './liveness';
import { destroySocket } from './pg-socket';

/** The parts of knex's client this guard wraps (knex offers no hook before a connection is made or handed out). */
interface KnexClient {
  acquireConnection(): Promise<unknown>;
  acquireRawConnection(): Promise<PooledClient>;
  transaction(...args: unknown[]): unknown;
}
/** The parts of knex's transaction `failedBeginsFail` wraps. */
interface KnexTransaction {
  begin(connection: unknown): Promise<unknown>;
  savepoint(connection: unknown): Promise<unknown>;
  isCompleted(): boolean;
}
/** knex's marker on a pooled connection: its pool validation destroys a connection carrying it instead of reusing it. */
type PooledClient = pg.Client & { __knex__disposed?: unknown };
type Callback = (err: Error | null, result?: unknown) => void;

/**
 * `liveness` (PostgreSQL with a probe): while it finds the database not answering, taking a connection and making one
 * fail at once with DatabaseNotAnsweringError (503), and the moment it turns so, every open connection is closed — the
 * statements stuck on them fail (503: a COMMIT among them has an unknown outcome, never reported as success) and knex
 * replaces them once the database answers again. `afterCreate` goes into the pool's options (so that the connections
 * MikroORM makes while it starts are watched too), `attach` onto knex's client once it exists.
 */
export class PoolGuard {
  private readonly open = new Set<PooledClient>();

  constructor(private readonly liveness?: DatabaseLiveness) {
    liveness?.onDown(() => {
      for (const connection of this.open) discard(connection, 'the database stopped answering its liveness probe');
    });
  }

  /** knex's pool hook, called with every new connection. */
  readonly afterCreate = (connection: PooledClient, done: (err: Error | null, connection: PooledClient) => void) =>
    done(null, watch(connection, this.open));

  attach(client: KnexClient): void {
    failedBeginsFail(client);
    const liveness = this.liveness;
    if (!liveness) return;
    const acquire = client.acquireConnection;
    const acquireRaw = client.acquireRawConnection;
    client.acquireConnection = function (this: KnexClient) {
      if (!liveness.up) return Promise.reject(new DatabaseNotAnsweringError());
      return acquire.call(this);
    };
    client.acquireRawConnection = function (this: KnexClient) {
      if (!liveness.up) return Promise.reject(new DatabaseNotAnsweringError());
      const connecting = acquireRaw.call(this);
      // A connection still being made when the database turns unresponsive would wait for its connect timeout (5 s).
      let off: () => unknown = () => undefined;
      const refused = new Promise<never>((_, reject) => {
        off = liveness.onDown(() => reject(new DatabaseNotAnsweringError()));
      });
      return Promise.race([connecting, refused])
        .catch((err: unknown) => {
          // One made after all is closed rather than leaked.
          connecting.then(
            (late) => discard(late, 'made after the database stopped answering'),
            () => undefined,
          );
          throw err;
        })
        .finally(off);
    };
  }
}

/**
 * knex swallows a failed BEGIN (a connection closed or timed out under it), and a nested transaction's failed SAVEPOINT
 * alike: the transaction is marked complete, the failure goes to a promise MikroORM no longer watches, and the
 * transaction's body runs anyway — MikroORM's first statement then fails with "Transaction query already complete",
 * a 500, not recognised as the outage it is. With this, a transaction whose BEGIN or SAVEPOINT failed does not start,
 * and MikroORM gets that statement's own error (503). Set on the client class: knex makes a transaction's own client
 * (on which nested transactions start) from the class's prototype, not from the instance. Once per class, before any
 * transaction acquires its connection.
 */
function failedBeginsFail(client: KnexClient): void {
  const prototype = Object.getPrototypeOf(client) as KnexClient & { [GUARDED]?: true };
  if (prototype[GUARDED]) return;
  prototype[GUARDED] = true;
  const transaction = prototype.transaction;
  prototype.transaction = function (this: KnexClient, ...args: unknown[]) {
    const trx = transaction.apply(this, args) as KnexTransaction;
    for (const step of ['begin', 'savepoint'] as const) {
      const start = trx[step];
      trx[step] = function (this: KnexTransaction, connection: unknown) {
        return start.call(this, connection).then((result) => {
          // The transaction has already failed with the statement's error: this one only stops its body from running.
          if (this.isCompleted()) throw new Error(`${step} failed`);
          return result;
        });
      };
    }
    return trx;
  };
}
const GUARDED = Symbol('failed transaction starts fail');

/** Tracks an open connection, and closes it when one of its statements times out on the client. */
function watch(connection: PooledClient, open: Set<PooledClient>): PooledClient {
  open.add(connection);
  connection.once('end', () => open.delete(connection));
  // pg's client-side `query_timeout` answers the statement but leaves it running on the connection: the transaction's
  // next statements would queue behind it, and the pool would hand the connection on. The callback forms are watched
  // (knex runs every statement as `query(config, callback)`).
  const query = connection.query.bind(connection) as (...args: unknown[]) => unknown;
  (connection as unknown as { query: typeof query }).query = (...args) => {
    const done = args.at(-1);
    if (typeof done === 'function')
      args[args.length - 1] = (err: Error | null, result: unknown) => {
        if (err?.message === 'Query read timeout') discard(connection, err.message);
        (done as Callback)(err, result);
      };
    return query(...args);
  };
  return connection;
}

function discard(connection: PooledClient, reason: string): void {
  connection.__knex__disposed ??= reason;
  destroySocket(connection);
}
