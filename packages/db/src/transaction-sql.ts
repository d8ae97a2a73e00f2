// A plain SQL statement sent on the request transaction's own connection: for writes and reads that need no entity.
import type { EntityManager, Knex } from '@mikro-orm/postgresql';
import { createHash } from 'node:crypto';

/** node-postgres's connection, as knex's pool hands it out. */
interface PgConnection {
  query(
    config: { text: string; values: unknown[]; name?: string },
    done: (err: Error | null, result?: { rows: unknown[] }) => void,
  ): void;
}

/** knex's client: the pool of connections. */
interface PoolClient {
  acquireConnection(): Promise<PgConnection>;
  releaseConnection(connection: PgConnection): Promise<unknown>;
}

/**
 * Runs `query` (`?` placeholders) with `params` bound, in `em`'s transaction (outside one, on a pooled connection); the
 * rows it returns. The statement goes to the connection as it is: MikroORM's `execute` would format every value into
 * the text and hand it to a knex query builder and runner first, which cost a write more than its statements did.
 * The connection's own hooks (the pool guard's timeouts, the exhaustion watch) see it as they see knex's, and the
 * ORM's `onQuery` as it sees the ORM's statements.
 *
 * `prepared`: the text is one of a few the service sends again and again (its values differ, never its text), so each
 * connection parses and plans it once. Only on PostgreSQL itself: the embedded database (PGlite) runs one session for
 * all its connections, so a prepared statement would not belong to the connection that prepared it.
 */
export async function sql<T>(em: EntityManager, sent: string, params: unknown[], prepared = false): Promise<T[]> {
  // MikroORM's hook that sees (and may rewrite) every statement the ORM sends sees these too.
  const query = em.config.get('onQuery')(sent, params);
  const fixed = prepared ? preparedStatement(query) : undefined;
  const name = fixed && namedOn(em) ? fixed.name : undefined;
  const statement = { text: fixed?.text ?? numbered(query), values: params.map(bindable), name };
  const trx = em.getTransactionContext<Knex.Transaction>();
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

function run<T>(connection: PgConnection, statement: Parameters<PgConnection['query']>[0]): Promise<T[]> {
  return new Promise((resolve, reject) =>
    // The callback form: the connection's watchers wrap it (knex's own).
    connection.query(statement, (err, result) => (err ? reject(err) : resolve(result!.rows as T[]))),
  );
}

/** `?` placeholders as PostgreSQL's `$1…$n`; `\?` is a literal question mark (a JSON operator), as in knex. */
function numbered(query: string): string {
  let n = 0;
  return query.replace(/\\\?|\?/g, (mark) => (mark === '?' ? `$${++n}` : '?'));
}

/**
 * A value as the driver binds it. Dates as ISO text, as the ORM writes them. A list would become a PostgreSQL array
 * here, where knex spread it into one placeholder per item: statements name each item (`in (?, ?, ?)`).
 */
function bindable(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) throw new Error('Bind each item of a list to a placeholder of its own.');
  return value;
}

/**
 * The prepared texts, numbered once, and their names: a digest of the text, short enough for PostgreSQL's 63 bytes (a
 * longer name is cut, and two cut names could meet).
 */
const statements = new Map<string, { text: string; name: string }>();
function preparedStatement(query: string): { text: string; name: string } {
  let statement = statements.get(query);
  if (statement) return statement;
  const text = numbered(query);
  statement = { text, name: `cp_${createHash('sha256').update(text).digest('hex').slice(0, 24)}` };
  statements.set(query, statement);
  return statement;
}

/** Whether `em`'s database keeps a session per connection, so that a connection's prepared statements are its own. */
const sessions = new WeakMap<object, boolean>();
export function preparedStatements(em: EntityManager, enabled: boolean): void {
  sessions.set(em.config, enabled);
}
const namedOn = (em: EntityManager) => sessions.get(em.config) ?? false;
