// D17: what a request's fingerprint covers, and what a stored answer leaves out.
import fc from 'fast-check';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { fingerprintOf, withoutSecrets, type IdempotencyOptions } from './idempotency';

const runs = { seed: Number(process.env.FC_SEED ?? 20261125), numRuns: Number(process.env.FC_RUNS ?? 200) };

interface Parts {
  method: string;
  url: string;
  ifMatch?: string;
  body: string;
}

/** A request as the middleware reads it: method, the URL with its query, headers, the body as a stream. */
function fingerprint({ method, url, ifMatch, body }: Parts, mode: 'raw' | 'parsed' = 'raw') {
  const req = Object.assign(Readable.from([Buffer.from(body)]), {
    method,
    originalUrl: url,
    header: (name: string) => (name === 'if-match' ? ifMatch : undefined),
    body: mode === 'parsed' ? JSON.parse(body) : undefined,
  });
  return fingerprintOf(req as never, { body: mode, maxBodyBytes: 1 << 20 } as IdempotencyOptions);
}

const json = fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v));
const parts: fc.Arbitrary<Parts> = fc.record({
  method: fc.constantFrom('POST', 'PUT'),
  url: fc
    .tuple(fc.webPath(), fc.option(fc.webQueryParameters(), { nil: undefined }))
    .map(([p, q]) => (q === undefined ? `/app/v1${p}` : `/app/v1${p}?${q}`)),
  ifMatch: fc.option(fc.constantFrom('"1"', '"2"', 'W/"1"', '*'), { nil: undefined }),
  body: json,
});

describe('fingerprintOf', () => {
  it('is equal for equal requests and differs when the method, path, query, If-Match or body differs', async () => {
    const change = fc.constantFrom<keyof Parts>('method', 'url', 'ifMatch', 'body');
    await fc.assert(
      fc.asyncProperty(parts, parts, change, async (a, b, member) => {
        expect(await fingerprint(a)).toBe(await fingerprint({ ...a }));
        const changed = { ...a, [member]: b[member] };
        fc.pre(changed[member] !== a[member]);
        expect(await fingerprint(changed)).not.toBe(await fingerprint(a));
      }),
      runs,
    );
  });

  it('covers the query string, not only the path', async () => {
    const a = { method: 'POST', url: '/app/v1/things?dryRun=true', body: '{}' };
    expect(await fingerprint(a)).not.toBe(await fingerprint({ ...a, url: '/app/v1/things?dryRun=false' }));
    expect(await fingerprint(a, 'parsed')).not.toBe(await fingerprint({ ...a, body: '{"a":1}' }, 'parsed'));
  });
});

describe('withoutSecrets', () => {
  const member = fc.string({ maxLength: 6 }).filter((k) => k !== 'key' && k !== 'token' && k !== '__proto__');
  const secret = fc.option(fc.string(), { nil: undefined });
  /** An answer without secrets, and the secrets it is sent with. */
  const answer = fc.tuple(fc.dictionary(member, fc.jsonValue({ maxDepth: 2 })), secret, secret);
  /** What a JSON round trip makes of a value (-0 becomes 0). */
  const asJson = (value: unknown) => JSON.parse(JSON.stringify(value));
  type Answer = [Record<string, unknown>, string | undefined, string | undefined];
  const withSecrets = ([rest, key, token]: Answer) => ({
    ...rest,
    ...(key === undefined ? {} : { key }),
    ...(token === undefined ? {} : { token }),
  });

  it('drops a REST answer’s `key` and `token` strings, and nothing else', () => {
    fc.assert(
      fc.property(answer, (parts) => {
        expect(JSON.parse(withoutSecrets(JSON.stringify(withSecrets(parts)), false))).toEqual(asJson(parts[0]));
      }),
      runs,
    );
  });

  it('drops them from every field of a GraphQL answer’s data', () => {
    fc.assert(
      fc.property(fc.dictionary(member, answer, { maxKeys: 3 }), (fields) => {
        const data = Object.fromEntries(Object.entries(fields).map(([f, p]) => [f, withSecrets(p)]));
        const body = JSON.stringify({ data });
        const stored = JSON.parse(withoutSecrets(body, true)) as { data: Record<string, unknown> };
        expect(stored.data).toEqual(asJson(Object.fromEntries(Object.entries(fields).map(([f, p]) => [f, p[0]]))));
      }),
      runs,
    );
  });

  it('keeps a non-string `key` (an id, a number) and answers that are not JSON', () => {
    expect(JSON.parse(withoutSecrets('{"key":3,"token":null}', false))).toEqual({ key: 3, token: null });
    expect(withoutSecrets('not json', false)).toBe('not json');
  });
});
