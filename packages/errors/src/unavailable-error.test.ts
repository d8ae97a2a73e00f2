import fc from 'fast-check';
import { GraphQLError } from 'graphql';
import { describe, expect, it } from 'vitest';
import { DatabaseNotAnsweringError, toErrorEnvelope, UNAVAILABLE_RETRY_AFTER_SECONDS } from './index';

const edge = { requestId: 'req-1', lang: 'en', variablesFrom: 'body' as const };
const runs = { seed: 20261125, numRuns: Number(process.env.FC_RUNS ?? 200) };

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });
/** What pg, knex, MikroORM and Node throw when PostgreSQL cannot be reached or goes away mid-request. */
const outages = fc.oneof(
  fc
    .constantFrom('ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH')
    .map((code) => withCode(`connect ${code} 127.0.0.1:5432`, code)),
  fc
    .constantFrom('57P01', '57P02', '57P03', '57014', '08000', '08003', '08006', '08001', '08004')
    .map((code) => withCode('terminating connection due to administrator command', code)),
  fc
    .constantFrom(
      'Connection terminated unexpectedly',
      'Connection terminated due to connection timeout',
      'timeout exceeded when trying to connect',
      'Knex: Timeout acquiring a connection. The pool is probably full.',
      'Client has encountered a connection error and is not queryable',
      'Query read timeout',
      'timeout expired',
    )
    // knex names the statement first: `<sql> - <message>`.
    .chain((m) => fc.constantFrom(m, `COMMIT; - ${m}`, `insert into "content_version" ("id") values ('x') - ${m}`))
    .map((m) => new Error(m)),
  // Node's fetch to a standalone subgraph service that died mid-request or does not accept the connection.
  fc
    .constantFrom('UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT')
    .map((code) => new TypeError('fetch failed', { cause: withCode('other side closed', code) })),
  // Refused at once while the liveness probe finds the database not answering, also after MikroORM copied it.
  fc.constant(new DatabaseNotAnsweringError()),
  fc.constant(Object.assign(new Error('copied'), { ...new DatabaseNotAnsweringError(), name: 'DriverException' })),
  fc.constant(
    Object.assign(new AggregateError([withCode('connect ECONNREFUSED ::1:5432', 'ECONNREFUSED')], ''), {
      code: 'ECONNREFUSED',
    }),
  ),
);
/** How the failure reaches the edge: bare, as a driver exception's cause, inside GraphQL's wrapper, or several deep. */
const wrapped = (inner: fc.Arbitrary<unknown>) =>
  fc.tuple(inner, fc.array(fc.constantFrom('cause', 'graphql', 'sqlState'), { maxLength: 3 })).map(([error, layers]) =>
    layers.reduce<unknown>((e, layer) => {
      if (layer === 'graphql') return new GraphQLError('An error occurred', { originalError: e as Error });
      if (layer === 'sqlState') return Object.assign(new Error('query failed'), { name: 'DriverException', cause: e });
      return new Error('wrapped', { cause: e });
    }, error),
  );

describe('database outages at the edge', () => {
  it('answers every connection failure, however wrapped, with 503 UNAVAILABLE and a retry hint, never INTERNAL', () => {
    fc.assert(
      fc.property(wrapped(outages), (err) => {
        const { status, body } = toErrorEnvelope(err, edge);
        expect(status).toBe(503);
        expect(body.error).toMatchObject({
          code: 'UNAVAILABLE',
          details: { retryAfter: UNAVAILABLE_RETRY_AFTER_SECONDS },
        });
        expect(JSON.stringify(body)).not.toMatch(/5432|ECONN|terminat|Knex/);
      }),
      runs,
    );
  });

  it('keeps a client value the database refused (08P01, class 22) at 400 and anything else at 500', () => {
    fc.assert(
      fc.property(
        wrapped(fc.constantFrom('08P01', '22P02', '22003').map((code) => withCode('invalid input', code))),
        (err) => {
          expect(toErrorEnvelope(err, edge).status).toBe(400);
        },
      ),
      runs,
    );
    for (const err of [
      new Error('boom'),
      // A value in the statement that reads like an outage does not make one: only the driver's own message counts.
      new Error(`insert into "tag" ("name") values ('x - Connection terminated') - value too long`),
      withCode('duplicate key', '23505'),
      withCode('syntax error', '42601'),
      withCode('no such file', 'ENOENT'),
    ]) {
      expect(toErrorEnvelope(err, edge).body.error.code).toBe('INTERNAL');
    }
  });
});
