import { GraphQLError } from 'graphql';
import { describe, expect, it } from 'vitest';
import { exhaustionOf, toErrorEnvelope, UNAVAILABLE_RETRY_AFTER_SECONDS } from './index';

const edge = { requestId: 'req-1', lang: 'en', variablesFrom: 'body' as const };
const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });
/** As MikroORM hands it on: a driver exception whose cause is pg's error, inside GraphQL's wrapper. */
const wrapped = (err: Error) =>
  new GraphQLError('An error occurred', {
    originalError: Object.assign(new Error('insert failed'), { name: 'DriverException', cause: err }),
  });

describe('a database out of disk, memory or connections', () => {
  it('answers a full disk (53100, or PGlite\u2019s message) with 507 INSUFFICIENT_STORAGE, never INTERNAL', () => {
    for (const err of [
      withCode('could not extend file "base/5/16384": No space left on device', '53100'),
      new Error(
        `insert into "content" ("id") values ('x') - could not extend file "base/5/1": No space left on device`,
      ),
      withCode('could not write to file "pg_wal/xlogtemp.1": No space left on device', '53100'),
    ]) {
      const { status, body } = toErrorEnvelope(wrapped(err), edge);
      expect(status).toBe(507);
      expect(body.error.code).toBe('INSUFFICIENT_STORAGE');
      expect(JSON.stringify(body)).not.toMatch(/base\/|pg_wal/);
      expect(exhaustionOf(wrapped(err))).toBe('disk');
    }
  });

  it('answers out of memory (53200) and too many connections (53300) with 503 UNAVAILABLE and a retry hint', () => {
    for (const code of ['53200', '53300', '53400']) {
      const { status, body } = toErrorEnvelope(wrapped(withCode('out of memory', code)), edge);
      expect(status).toBe(503);
      expect(body.error).toMatchObject({
        code: 'UNAVAILABLE',
        details: { retryAfter: UNAVAILABLE_RETRY_AFTER_SECONDS },
      });
      expect(exhaustionOf(withCode('x', code))).toBe('resources');
    }
  });

  it('is not fooled by a value in the statement', () => {
    const err = new Error(`insert into "tag" ("name") values ('No space left on device') - value too long`);
    expect(exhaustionOf(err)).toBeUndefined();
    expect(toErrorEnvelope(err, edge).status).toBe(500);
  });
});
