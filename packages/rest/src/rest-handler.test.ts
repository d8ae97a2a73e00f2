// The REST handler over a small schema: query parameters checked and coerced, If-Match read, answers shaped.
import fc from 'fast-check';
import { GraphQLBoolean, GraphQLEnumType, GraphQLFloat, GraphQLInt, type GraphQLArgument } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertQueryParameters } from './query-parameters';
import { revisionFromIfMatch } from './routes';
import { startRestApp, type RestApp } from './rest.fixture';

const runs = { seed: Number(process.env.FC_SEED ?? 20261125), numRuns: Number(process.env.FC_RUNS ?? 200) };
const INT_MAX = 2 ** 31 - 1;

describe('assertQueryParameters', () => {
  const order = new GraphQLEnumType({ name: 'Order', values: { asc: {}, desc: {} } });
  const arg = (name: string, type: GraphQLArgument['type']) => ({ name, type }) as GraphQLArgument;
  const args = [
    arg('limit', GraphQLInt),
    arg('score', GraphQLFloat),
    arg('deleted', GraphQLBoolean),
    arg('order', order),
  ];
  const valid: Record<string, fc.Arbitrary<string>> = {
    limit: fc.integer({ min: -INT_MAX, max: INT_MAX }).map(String),
    score: fc
      .double({ noNaN: true, noDefaultInfinity: true })
      .map(String)
      .filter((s) => !s.includes('Infinity')),
    deleted: fc.constantFrom('true', 'false'),
    order: fc.constantFrom('asc', 'desc'),
  };
  const outOfRange = fc.oneof(
    fc.bigInt({ min: BigInt(INT_MAX) + 1n, max: 10n ** 30n }),
    fc.bigInt({ min: -(10n ** 30n), max: -BigInt(INT_MAX) - 1n }),
  );
  const invalid: Record<string, fc.Arbitrary<string>> = {
    limit: fc.oneof(
      outOfRange.map(String),
      fc.string().filter((s) => !/^-?\d+$/.test(s)),
      fc.double({ noInteger: true }).map(String),
    ),
    score: fc.string().filter((s) => s.trim() === s && Number.isNaN(Number(s))),
    deleted: fc.string().filter((s) => s !== 'true' && s !== 'false'),
    order: fc.string().filter((s) => s !== 'asc' && s !== 'desc'),
  };

  it('admits every value of each argument’s type', () => {
    const query = fc.record(valid, { requiredKeys: [] }) as fc.Arbitrary<Record<string, string>>;
    fc.assert(
      fc.property(query, (q) => assertQueryParameters(args, q)),
      runs,
    );
  });

  it('refuses any value outside its argument’s type with 400 naming the parameter, whatever else is sent', () => {
    const name = fc.constantFrom(...Object.keys(invalid));
    const sent = name.chain((n) => fc.tuple(fc.constant(n), invalid[n], fc.record(valid, { requiredKeys: [] })));
    fc.assert(
      fc.property(sent, ([n, value, others]) => {
        const query = { ...others, [n]: value } as Record<string, string>;
        const refusal = expect.objectContaining({ code: 'BAD_REQUEST', details: { parameter: n, value } });
        expect(() => assertQueryParameters(args, query)).toThrow(refusal);
      }),
      runs,
    );
  });
});

describe('revisionFromIfMatch', () => {
  it('reads a strong, weak or bare revision; `*` is any; anything else names no revision (0)', () => {
    fc.assert(
      fc.property(fc.nat({ max: 999_999_999 }), fc.constantFrom('"n"', 'W/"n"', 'n', '"n", "7"'), (n, form) => {
        expect(revisionFromIfMatch(form.replace('n', String(n)))).toBe(n);
      }),
      runs,
    );
    expect(revisionFromIfMatch('*')).toBeUndefined();
    for (const other of ['"abc"', '"-1"', '"1234567890"', '']) expect(revisionFromIfMatch(other)).toBe(0);
  });
});

describe('the REST handler (in-process, over a small schema)', () => {
  let app: RestApp;
  beforeAll(async () => (app = await startRestApp()));
  afterAll(() => app?.close());
  const THINGS = '/app/v1/organizations/o1/things';
  type Init = { body?: unknown; headers?: Record<string, string> };
  const call = async (method: string, path: string, init: Init = {}) => {
    const res = await fetch(`${app.url}${path}`, {
      method,
      headers: { ...(init.body === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, any> };
  };
  const lastCall = () => app.calls.at(-1)!;

  it('answers a list as {data, pagination}: references as ids, absent pagination members left out', async () => {
    const res = await call('GET', `${THINGS}?limit=2`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: [0, 1].map((i) => ({ id: `t${i}`, name: `thing t${i}`, revision: 1, createdBy: 'u1', note: null })),
      pagination: { limit: 2 },
    });
    expect((await call('GET', `${THINGS}?limit=1&lastKey=k`)).body.pagination).toEqual({ limit: 1, lastKey: 'k' });
  });

  it('answers a creation 201 with the resource; the flat body is the `input` argument', async () => {
    const res = await call('POST', THINGS, { body: { name: 'made', note: 'n' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ id: 'new', name: 'made', note: 'n', createdBy: 'u1' });
    const input = { name: 'made', note: 'n' };
    expect(lastCall()).toMatchObject({ field: 'createThing', args: { organizationId: 'o1', input } });
  });

  it('passes If-Match as `expectedRevision` and answers the new revision as a strong ETag', async () => {
    const res = await call('PUT', `${THINGS}/a%2Fb`, { body: { name: 'x' }, headers: { 'if-match': 'W/"3"' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toBe('"4"');
    expect(lastCall()).toMatchObject({ field: 'updateThing', args: { id: 'a/b', expectedRevision: 3 } });
  });

  it('round-trips any admitted query parameter into the variables, coerced to its argument’s type', async () => {
    const text = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }).filter((s) => !s.includes('\u0000'));
    const anyScore = fc.double({ noNaN: true, noDefaultInfinity: true });
    const sent = fc.tuple(fc.nat({ max: 50 }), anyScore, fc.boolean(), text);
    await fc.assert(
      fc.asyncProperty(sent, async ([limit, score, deleted, lastKey]) => {
        const search = new URLSearchParams({ limit: `${limit}`, score: `${score}`, deleted: `${deleted}`, lastKey });
        search.set('order', 'desc');
        const res = await call('GET', `${THINGS}?${search}`);
        expect(res.status).toBe(200);
        // -0 is printed as 0: its round trip is 0.
        const coerced = { limit, score: Object.is(score, -0) ? 0 : score, deleted, order: 'desc', lastKey };
        expect(lastCall().args).toEqual({ organizationId: 'o1', ...coerced });
      }),
      { ...runs, numRuns: Math.ceil(runs.numRuns / 4) },
    );
  });

  it('refuses a parameter its argument’s type cannot hold: 400 envelope naming it, no operation run', async () => {
    const refused = [
      ['limit', '2147483648'],
      ['limit', '1.5'],
      ['deleted', 'yes'],
      ['order', 'up'],
      ['score', 'many'],
    ];
    for (const [name, value] of refused) {
      const before = app.calls.length;
      const res = await call('GET', `${THINGS}?${name}=${value}`);
      expect(res.status, `${name}=${value}`).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'BAD_REQUEST', details: { parameter: name, value } });
      expect(app.calls.length).toBe(before);
    }
  });

  it('refuses a query parameter the route does not take with 400 naming it, whatever else is sent; no operation run', async () => {
    const taken = new Set(['limit', 'score', 'deleted', 'order', 'lastKey', 'organizationId']);
    const unknown = fc
      .string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 12 })
      .filter((name) => !taken.has(name) && name.trim() === name && !/[&=#+%[\]]/.test(name));
    await fc.assert(
      fc.asyncProperty(unknown, fc.constantFrom('', 'limit=2&', 'order=desc&'), async (name, others) => {
        const before = app.calls.length;
        const res = await call('GET', `${THINGS}?${others}${encodeURIComponent(name)}=5`);
        expect(res.status, name).toBe(400);
        expect(res.body.error).toMatchObject({ code: 'BAD_REQUEST', details: { parameter: name } });
        expect(app.calls.length).toBe(before);
      }),
      { ...runs, numRuns: Math.ceil(runs.numRuns / 4) },
    );
  });

  it('answers an unknown path 404 and a body that is not an object 422, in the envelope', async () => {
    expect((await call('GET', '/app/v1/organizations/o1/nothing')).body.error.code).toBe('NOT_FOUND');
    const res = await call('POST', THINGS, { body: [1] });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
  });

  it('takes JSON in UTF-8 only: another declared charset is 415', async () => {
    const body = { name: 'made' };
    for (const type of ['application/json; charset=utf-8', 'application/json;charset="UTF-8"', 'application/json'])
      expect((await call('POST', THINGS, { body, headers: { 'content-type': type } })).status).toBe(201);
    for (const type of ['application/json; charset=utf-16', 'application/json; charset=latin1']) {
      const res = await call('POST', THINGS, { body, headers: { 'content-type': type } });
      expect(res.status).toBe(415);
      expect(res.body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    }
  });
});
