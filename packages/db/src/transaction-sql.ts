// A plain SQL statement sent on the request transaction's own connection: for writes and reads that need no entity.
import type { EntityManager, Knex } from '@mikro-orm/postgresql';
import { createHash } from 'node:crypto';

/** node-postgres's connection, as knex's pool hands it out (`__knex__disposed`: knex destroys it when it comes back). */
interface PgConnection {
  query(config: Statement, done: (err: Error | null, result?: Result | Result[]) => void): void;
  __knex__disposed?: unknown;
}
interface Statement {
  text: string;
  values: unknown[];
  name?: string;
}
interface Result {
  rows: unknown[];
}

/** knex's client: the pool of connections. */
interface PoolClient {
  acquireConnection(): Promise<PgConnection>;
  releaseConnection(connection: PgConnection): Promise<unknown>;
}

/** How an ORM's database takes statements (`configureStatements`). */
interface StatementSupport {
  /** Every connection is a session of its own (PostgreSQL), not one session shared by all (PGlite). */
  ownSessions: boolean;
  /** Fixed texts are prepared once per connection. */
  prepare: boolean;
}
/** An ORM `configureStatements` was not told about: taken as the embedded database, the stricter of the two. */
const UNCONFIGURED: StatementSupport = { ownSessions: false, prepare: false };

/** The most values one statement binds: the protocol counts them in 16 bits. */
const MAX_BOUND = 65_535;

/**
 * Runs `query` (`?` placeholders) with `params` bound, in `em`'s transaction (outside one, on a pooled connection); the
 * rows it returns. The statement goes to the connection as it is: MikroORM's `execute` would format every value into
 * the text and hand it to a knex query builder and runner first, which cost a write more than its statements did.
 * The connection's own hooks (the pool guard's timeouts, the exhaustion watch) see it as they see knex's, and the
 * ORM's `onQuery` as it sees the ORM's statements.
 *
 * The values go into the text, as the ORM sends them, where binding them can't work: beyond the protocol's count, and
 * on the embedded database outside a transaction (its one session takes every connection's protocol messages as they
 * come, so another connection's could fall between a statement's and its values).
 *
 * `prepared`: the text is one of a few the service sends again and again (its values differ, never its text), so each
 * connection parses and plans it once. Only where each connection is a session of its own.
 */
export async function sql<T>(em: EntityManager, sent: string, params: unknown[], prepared = false): Promise<T[]> {
  // MikroORM's hook that sees (and may rewrite) every statement the ORM sends sees these too.
  const query = em.config.get('onQuery')(sent, params);
  const values = params.map(bindable);
  const database = databases.get(em.config) ?? UNCONFIGURED;
  const trx = em.getTransactionContext<Knex.Transaction>();
  const statement: Statement =
    values.length > MAX_BOUND || (values.length > 0 && !trx && !database.ownSessions)
      ? { text: em.getPlatform().formatQuery(query, values), values: [] }
      : prepared && database.prepare
        ? preparedStatement(query, values)
        : { text: numbered(query), values };
  if (trx) {
    // knex refuses a statement on a transaction that has ended: its connection may already serve another request.
    if (trx.isCompleted()) throw new Error('The transaction has already ended.');
    return run<T>(await (trx.client as unknown as PoolClient).acquireConnection(), statement);
  }
  const pool = em.getConnection().getKnex().client as unknown as PoolClient;
  const connection = await pool.acquireConnection();
  try {
    return await run<T>(connection, statement);
  } finally {
    await pool.releaseConnection(connection);
  }
}

/** Tells `sql` how `em`'s database takes statements; set once the ORM has connected. */
export function configureStatements(em: EntityManager, support: StatementSupport): void {
  databases.set(em.config, support);
}
const databases = new WeakMap<object, StatementSupport>();

function run<T>(connection: PgConnection, statement: Statement): Promise<T[]> {
  return new Promise((resolve, reject) =>
    // The callback form: the connection's watchers wrap it (knex's own).
    connection.query(statement, (err, result) => {
      if (err) {
        if (statement.name && UNUSABLE_PREPARED.has((err as { code?: string }).code ?? '')) {
          // The connection would refuse this name on every later use: it is closed instead of going back to the pool.
          connection.__knex__disposed ??= `prepared statement ${statement.name}: ${err.message}`;
        }
        return reject(err);
      }
      // A text of several statements without values answers each; the last one's rows are the answer.
      resolve((Array.isArray(result) ? result.at(-1)! : result!).rows as T[]);
    }),
  );
}

/**
 * Errors after which a prepared name can't be used again on its connection: its result columns changed (a migration
 * altered a column's type while the process ran), or the server no longer holds it (a pooler handed the connection
 * over).
 */
const UNUSABLE_PREPARED = new Set(['0A000', '26000']);

/** `?` placeholders as PostgreSQL's `$1…$n`; `\?` is a literal question mark (a JSON operator), as in knex. */
function numbered(query: string): string {
  let n = 0;
  return query.replace(/\\\?|\?/g, (mark) => (mark === '?' ? `$${++n}` : '?'));
}

/**
 * A value as the driver binds it. Dates as ISO text, as the ORM writes them (the driver would send the machine's
 * local time, which a `timestamp` column without a zone reads differently). A list would become a PostgreSQL array
 * here, where knex spread it into one placeholder per item: statements name each item (`in (?, ?, ?)`).
 */
function bindable(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) throw new Error('Bind each item of a list to a placeholder of its own.');
  return value;
}

/**
 * The prepared texts, numbered once, and their names: a digest of the text, short enough for PostgreSQL's 63 bytes (a
 * longer name is cut, and two cut names could meet). At most `MAX_PREPARED` texts: past them (an `onQuery` hook that
 * writes something new into every text), statements are sent unnamed, so neither this map nor any connection's
 * prepared statements grow without end.
 */
const statements = new Map<string, { text: string; name: string }>();
const MAX_PREPARED = 200;
function preparedStatement(query: string, values: unknown[]): Statement {
  let known = statements.get(query);
  if (!known) {
    const text = numbered(query);
    if (statements.size >= MAX_PREPARED) return { text, values };
    known = { text, name: `cp_${createHash('sha256').update(text).digest('hex').slice(0, 24)}` };
    statements.set(query, known);
  }
  return { ...known, values };
}
