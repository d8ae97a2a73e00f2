// The edge refuses every malformed input with 400 and the envelope before any operation runs; well-formed input passes.
import fc from 'fast-check';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertSafeGraphQLPayload, MAX_QUERY_PARAMETERS } from '@cp/edge';
import { MAX_JSON_DEPTH } from '@cp/graphql';
import { startRestApp, type RestApp } from './rest.fixture';

const runs = { seed: Number(process.env.FC_SEED ?? 20261125), numRuns: Number(process.env.FC_RUNS ?? 150) };
const THINGS = '/app/v1/organizations/o1/things';

/** Text a client may send: any well-formed Unicode but NUL. */
const text = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 10 }).filter((s) => !s.includes('\u0000'));
// eslint-disable-next-line no-control-regex -- a valid id has no control character
const id = text.filter((s) => s !== '.' && s !== '..' && !/[\u0000-\u001f\u007f]/.test(s));
const validQuery = fc.record(
  { limit: fc.integer({ min: 0, max: 5 }).map(String), lastKey: text, order: fc.constantFrom('asc', 'desc') },
  { requiredKeys: [] },
);

interface Sent {
  method: string;
  /** Sent byte for byte (no client-side normalisation of dot segments or encodings). */
  path: string;
  body?: string;
}

/** Well-formed requests to every kind of route: list with parameters, one resource by any id, a creation. */
const wellFormed: fc.Arbitrary<Sent> = fc.oneof(
  validQuery.map((q) => ({ method: 'GET', path: `${THINGS}?${new URLSearchParams(q)}` })),
  id.map((s) => ({ method: 'GET', path: `${THINGS}/${encodeURIComponent(s)}` })),
  fc.record({ name: text, note: text }).map((body) => ({ method: 'POST', path: THINGS, body: JSON.stringify(body) })),
);

/** Each guarded defect, somewhere in an otherwise well-formed request. */
const badEncoding = fc.constantFrom('%', '%z1', '%E0%A4', '%C3', '%FF');
const nul = fc.constant('%00');
const dotSegment = fc.constantFrom('.', '..', '%2e', '%2E%2e');
const loneSurrogate = fc.constantFrom('%ED%A0%80', '%ED%BF%BF');
const around = (bad: fc.Arbitrary<string>) =>
  fc.tuple(id, bad, id).map(([a, b, c]) => encodeURIComponent(a) + b + encodeURIComponent(c));
const inPath = (bad: fc.Arbitrary<string>) => around(bad).map((s) => ({ method: 'GET', path: `${THINGS}/${s}` }));

/** A query string of valid parameters with one more pair at any position. */
const withPair = (pair: fc.Arbitrary<string>) =>
  fc.tuple(validQuery, pair, fc.nat()).map(([q, p, at]) => {
    const pairs = new URLSearchParams(q).toString().split('&').filter(Boolean);
    pairs.splice(at % (pairs.length + 1), 0, p);
    return { method: 'GET', path: `${THINGS}?${pairs.join('&')}` };
  });
/** A defect in a query parameter's name or its value. */
const inParameter = (bad: fc.Arbitrary<string>) =>
  fc.tuple(bad, fc.boolean()).chain(([b, inName]) => withPair(fc.constant(inName ? `x${b}=1` : `x=${b}`)));
const inBody = (value: fc.Arbitrary<string>) =>
  fc.tuple(fc.record({ name: text }), value, fc.boolean()).map(([body, raw, asKey]) => ({
    method: 'POST',
    path: THINGS,
    // The defect spelled as a JSON escape, as clients' serializers send it, in a member's value or its name.
    body: JSON.stringify(body).replace(/}$/, asKey ? `,"${raw}":1}` : `,"note":"${raw}"}`),
  }));

const defects: Record<string, fc.Arbitrary<Sent>> = {
  'path: invalid percent-encoding': inPath(badEncoding),
  'path: dot segment': dotSegment.map((d) => ({ method: 'GET', path: `${THINGS}/${d}` })),
  'path: NUL or control character': inPath(fc.constantFrom('%00', '%1F', '%7F')),
  'path: lone surrogate': inPath(loneSurrogate),
  'query: invalid percent-encoding': inParameter(badEncoding),
  'query: NUL': inParameter(nul),
  'query: lone surrogate': inParameter(loneSurrogate),
  'query: repeated name': withPair(fc.constantFrom('x', 'lastKey', 'order').map((n) => `${n}=a&${n}=b`)),
  'query: bracket name': withPair(fc.constantFrom('a[]=1', 'a[b]=1', 'a%5B%5D=1', 'limit[0]=1')),
  'query: too many parameters': fc.integer({ min: MAX_QUERY_PARAMETERS + 1, max: 400 }).map((n) => ({
    method: 'GET',
    path: `${THINGS}?${Array.from({ length: n }, (_, i) => `p${i}=1`).join('&')}`,
  })),
  'query: Int overflow': fc
    .oneof(fc.bigInt({ min: 2n ** 31n, max: 10n ** 40n }), fc.bigInt({ min: -(10n ** 40n), max: -(2n ** 31n) }))
    .map((n) => ({ method: 'GET', path: `${THINGS}?limit=${n}` })),
  'body: NUL': inBody(fc.constant('\\u0000')),
  'body: lone surrogate': inBody(fc.constantFrom('\\ud800', '\\udfff', 'a\\ud83d')),
  'body: nested too deep': fc
    .tuple(fc.integer({ min: MAX_JSON_DEPTH, max: 4 * MAX_JSON_DEPTH }), fc.constantFrom('[', '{"a":'))
    .map(([depth, open]) => {
      const nested = `${open.repeat(depth)}1${(open === '[' ? ']' : '}').repeat(depth)}`;
      return { method: 'POST', path: THINGS, body: `{"name":"x","note":${nested}}` };
    }),
};

describe('input guard', () => {
  let app: RestApp;
  beforeAll(async () => (app = await startRestApp()));
  afterAll(() => app?.close());

  function send({ method, path, body }: Sent): Promise<{ status: number; body: any }> {
    const { hostname, port } = new URL(app.url);
    return new Promise((resolve, reject) => {
      const headers = body === undefined ? {} : { 'content-type': 'application/json' };
      const req = request({ host: hostname, port, method, path, headers }, (res) => {
        let raw = '';
        res.setEncoding('utf8').on('data', (c: string) => (raw += c));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(raw) }));
      });
      req.once('error', reject);
      req.end(body);
    });
  }

  it('refuses every guarded defect with 400 and the error envelope, before any operation runs', async () => {
    const kinds = Object.keys(defects);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...kinds).chain((k) => fc.tuple(fc.constant(k), defects[k])),
        async (pair) => {
          const [kind, sent] = pair;
          const before = app.calls.length;
          const res = await send(sent);
          expect(res.status, `${kind}: ${sent.method} ${sent.path} ${sent.body ?? ''}`).toBe(400);
          const envelope = { error: { code: 'BAD_REQUEST', message: expect.any(String), details: expect.any(Object) } };
          expect(res.body).toEqual(envelope);
          expect(app.calls.length).toBe(before);
        },
      ),
      runs,
    );
  });

  it('passes every well-formed request to its operation', async () => {
    await fc.assert(
      fc.asyncProperty(wellFormed, async (sent) => {
        const before = app.calls.length;
        const res = await send(sent);
        expect(res.status, `${sent.method} ${sent.path} ${sent.body ?? ''}`).toBeLessThan(300);
        expect(app.calls.length).toBe(before + 1);
      }),
      runs,
    );
  });
});

describe('assertSafeGraphQLPayload', () => {
  it('refuses a NUL escape in the document and an empty operation name; admits any other well-formed payload', () => {
    fc.assert(
      fc.property(text, fc.constantFrom('\\u0000', '\\u{0}', '\\u{000}', '\\U0000'), (name, nulEscape) => {
        const nulInDocument = { query: `{ a(s: "${nulEscape}") }` };
        expect(() => assertSafeGraphQLPayload(nulInDocument)).toThrow(expect.objectContaining({ code: 'BAD_REQUEST' }));
        const noName = { query: '{ a }', operationName: '' };
        const namesNone = expect.objectContaining({ details: { parameter: 'operationName' } });
        expect(() => assertSafeGraphQLPayload(noName)).toThrow(namesNone);
        const fine = { query: `query Q { a(s: ${JSON.stringify(name)}) }`, operationName: 'Q', variables: { v: name } };
        expect(() => assertSafeGraphQLPayload(fine)).not.toThrow();
      }),
      runs,
    );
  });
});
