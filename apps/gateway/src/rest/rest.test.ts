// REST routing and shaping: path → route, operation, variables; query parameters checked and coerced; answers shaped.
import fc from 'fast-check';
import {
  buildSchema,
  coerceInputValue,
  getNamedType,
  isEnumType,
  isInputObjectType,
  GraphQLBoolean,
  GraphQLEnumType,
  GraphQLFloat,
  GraphQLInt,
  type GraphQLArgument,
  type OperationDefinitionNode,
} from 'graphql';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bodyTypeErrors } from './body-types';
import { assertQueryParameters } from './query-parameters';
import {
  BASE_PATHS,
  compileRoutes,
  restSchema,
  revisionFromIfMatch,
  routeFor,
  routesByMethod,
  type CompiledRoute,
} from './rest';
import { getVariables, operationFor, pathParameters, routeVariables } from './rest-operations';
import { startRestApp, type RestApp } from './rest.fixture';
import { allRoutes, SCHEMA_DIR, SOFA_IGNORE, SOFA_MODELS } from '@cp/supergraph';
import { createSofa, createSofaRouter } from 'sofa-api';

const runs = { seed: Number(process.env.FC_SEED ?? 20261125), numRuns: Number(process.env.FC_RUNS ?? 200) };
const INT_MAX = 2 ** 31 - 1;
/** Path parameter values: ids as clients send them, any Unicode, percent-encoded into the path. */
const segment = fc
  .string({ unit: 'grapheme', minLength: 1, maxLength: 12 })
  .filter((s) => !s.includes('\u0000') && s !== '.' && s !== '..');

describe('the route table (every subgraph’s routes over the committed API schema)', () => {
  const schema = buildSchema(readFileSync(join(SCHEMA_DIR, 'api.graphql'), 'utf8'));
  const families = ['app', 'api'] as const;
  const compiled = Object.fromEntries(families.map((f) => [f, compileRoutes(schema, allRoutes(), f)])) as Record<
    'app' | 'api',
    CompiledRoute[]
  >;
  const byMethod = { app: routesByMethod(compiled.app), api: routesByMethod(compiled.api) };

  it('sends any filled-in path of a route to that route, its segments decoded to the variables of their names', () => {
    const all = families.flatMap((family) => compiled[family].map((route) => ({ family, route })));
    expect(all.length).toBeGreaterThan(60);
    fc.assert(
      fc.property(fc.constantFrom(...all), fc.array(segment, { minLength: 6, maxLength: 6 }), (chosenRoute, values) => {
        const { family, route } = chosenRoute;
        const names = [...route.path.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1]);
        let i = 0;
        // A value spelling one of the table's literal segments would be another route's path: ids never do.
        const filled = values.map((v) => `~${v}`);
        const path = route.path.replace(/:[A-Za-z]+/g, () => encodeURIComponent(filled[i++]));
        // Without a body, an alias route declared on this very path may take the request (the bodiless search,
        // the next test); otherwise the path reaches its own route.
        const chosen = routeFor(byMethod[family], route.method, path, undefined);
        if (chosen?.aliased) expect(chosen.route.alias!.path).toBe(route.path);
        else expect(chosen?.route.field).toBe(route.field);
        const document = operationFor(schema, route.field);
        const operation = document.definitions[0] as OperationDefinitionNode;
        const root = operation.selectionSet.selections[0];
        expect(root.kind === 'Field' && root.name.value).toBe(route.field.split('.')[1]);
        const variables = getVariables(document, schema, pathParameters(route.path), path, {});
        names.forEach((name, n) => expect(variables[name], `${route.field} :${name}`).toBe(filled[n]));
      }),
      runs,
    );
  });

  it('takes POST …/content as a search when the body has none of typeId, name, content and a search member or none at all; else a creation', () => {
    const path = '/organizations/o/projects/p/content';
    const choose = (body: Record<string, unknown> | undefined) =>
      routeFor(byMethod.app, 'POST', path, body)?.route.field;
    const members = fc.constantFrom('typeId', 'name', 'content', 'filter', 'sort', 'page', 'limit', 'query', 'status');
    const bodies = fc.option(fc.dictionary(members, fc.jsonValue({ maxDepth: 1 })), { nil: undefined });
    fc.assert(
      fc.property(bodies, (body) => {
        const searchMembers = ['filter', 'sort', 'page', 'limit', 'search', 'query'];
        const creation =
          body !== undefined &&
          (['typeId', 'name', 'content'].some((m) => m in body) ||
            (Object.keys(body).length > 0 && !searchMembers.some((m) => m in body)));
        expect(choose(body)).toBe(creation ? 'Mutation.createContent' : 'Query.searchContent');
      }),
      runs,
    );
  });

  it('gives every mutation route the variables sofa’s router gave it, and refuses what it refused (differential)', async () => {
    type Refusal = { message: string; status?: unknown };
    const captured: { variables?: Record<string, unknown>; refused?: Refusal } = {};
    const refusal = (err: unknown): Refusal => ({
      message: (err as Error).message,
      status: (err as { extensions?: { http?: { status?: unknown } } }).extensions?.http?.status,
    });
    const routers = Object.fromEntries(
      families.map((family) => {
        const routes = compiled[family];
        const config = createSofa({
          schema: restSchema(schema, routes),
          basePath: BASE_PATHS[family],
          routes: Object.fromEntries(routes.map((r) => [r.field, { method: r.method, path: r.path }])),
          execute: ({ variableValues }) => {
            captured.variables = variableValues as Record<string, unknown>;
            // Any root field's value: sofa answers it as JSON.
            return { data: new Proxy({}, { get: () => 0 }) };
          },
          errorHandler: (errors) => {
            captured.refused = refusal(errors[0]);
            return Response.json({}, { status: 400 }) as never;
          },
        });
        return [family, { routes, sofa: createSofaRouter({ ...config, models: SOFA_MODELS, ignore: SOFA_IGNORE }) }];
      }),
    );
    const mutations = families.flatMap((family) =>
      compiled[family].filter((r) => r.field.startsWith('Mutation.')).map((route) => ({ family, route })),
    );
    expect(mutations.length).toBeGreaterThan(30);
    // Any JSON, spelled as a client may: numbers too large for a double, -0, nested objects, `__proto__`.
    const number = fc.oneof(
      fc.constantFrom('1e400', '-1e400', '-0', '0', '-0.0', '2147483648', '1.5'),
      fc.integer().map(String),
    );
    const json = fc.oneof(
      fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)),
      number,
      fc.dictionary(fc.constantFrom('__proto__', 'n', 'name'), number).map(
        (o) =>
          `{${Object.entries(o)
            .map(([k, v]) => `${JSON.stringify(k)}:${v}`)
            .join(',')}}`,
      ),
    );
    // A route with a body of members its operation has (so coercion runs on every type) and others.
    const routeAndBody = fc.constantFrom(...mutations).chain((chosen) => {
      const names = fc.constantFrom(...chosen.route.args.map((a) => a.name), '__proto__', 'other');
      return fc.tuple(fc.constant(chosen), fc.option(fc.dictionary(names, json, { maxKeys: 4 }), { nil: undefined }));
    });
    const revision = fc.option(fc.integer({ min: 0, max: 2 ** 31 - 1 }).map(String), { nil: undefined });
    await fc.assert(
      fc.asyncProperty(routeAndBody, segment, revision, async ([chosen, members], value, rev) => {
        const { family, route } = chosen;
        const path = route.path.replace(/:[A-Za-z]+/g, () => encodeURIComponent(`~${value}`));
        // The body as the handler parses it (members spelled as raw JSON text), then flat members plus `input`.
        const raw =
          members &&
          `{${Object.entries(members)
            .map(([k, v]) => `${JSON.stringify(k)}:${v}`)
            .join(',')}}`;
        const body = raw === undefined ? undefined : (JSON.parse(raw) as Record<string, unknown>);
        const variables = body === undefined ? undefined : { ...body, input: body };
        const query: Record<string, string> = Object.create(null);
        if (rev !== undefined && route.args.some((a) => a.name === 'expectedRevision')) query.expectedRevision = rev;
        // The reference: sofa's router over a Request with the query string and the body as JSON text.
        delete captured.variables;
        delete captured.refused;
        const url = new URL(`${BASE_PATHS[family]}${path}`, 'http://rest.local');
        url.search = new URLSearchParams(Object.entries(query)).toString();
        const init = { method: route.method, headers: { 'content-type': 'application/json' } };
        await routers[family].sofa.fetch(new Request(url, { ...init, body: JSON.stringify(variables) }), {});
        let ours: typeof captured;
        try {
          const document = operationFor(restSchema(schema, routers[family].routes), route.field);
          ours = { variables: routeVariables(document, schema, pathParameters(route.path), path, query, variables) };
        } catch (err) {
          ours = { refused: refusal(err) };
        }
        expect(ours).toEqual(captured);
      }),
      { ...runs, numRuns: Math.ceil(runs.numRuns / 2) },
    );
  });

  it('admits a body member only when GraphQL would take its JSON value as it is (no one-item list, no ID from a number)', () => {
    const mutations = families.flatMap((family) => compiled[family].filter((r) => r.field.startsWith('Mutation.')));
    const value = fc.oneof(
      fc.jsonValue({ maxDepth: 2 }),
      fc.constantFrom('published', 'view', 'x', 5, 1.5, true, [], ['a'], {}, { name: 'n' }),
    );
    fc.assert(
      fc.property(
        fc.constantFrom(...mutations).chain((route) => {
          const input = route.args.find((a) => a.name === 'input');
          const named = input && getNamedType(input.type);
          const fields = named && isInputObjectType(named) ? Object.keys(named.getFields()) : [];
          const names = [...route.args.map((a) => a.name).filter((n) => n !== 'input'), ...fields];
          return fc.tuple(fc.constant(route), fc.dictionary(fc.constantFrom(...names, 'other'), value, { maxKeys: 4 }));
        }),
        ([route, body]) => {
          const input = route.args.find((a) => a.name === 'input');
          const named = input && getNamedType(input.type);
          const fields = named && isInputObjectType(named) ? named.getFields() : {};
          const admitted = bodyTypeErrors(route.args, body).length === 0;
          for (const [name, member] of Object.entries(body)) {
            const type = route.args.find((a) => a.name === name && a !== input)?.type ?? fields[name]?.type;
            if (!type || member === null) continue;
            let coerced: unknown;
            let refused = false;
            coerceInputValue(member, type, () => (refused = true));
            if (!refused) coerced = coerceInputValue(member, type);
            const reshaped =
              !refused && !isEnumType(getNamedType(type)) && JSON.stringify(coerced) !== JSON.stringify(member);
            // Admitted: GraphQL takes the member as sent or refuses it itself (its 422 names it); never reshapes it.
            if (admitted) expect(reshaped, `${route.field} ${name}: ${JSON.stringify(member)}`).toBe(false);
          }
        },
      ),
      runs,
    );
    const createContent = compiled.app.find((r) => r.field === 'Mutation.createContent')!;
    expect(bodyTypeErrors(createContent.args, { typeId: 5, tags: 'a', name: 'n', content: {} })).toEqual([
      { path: '/typeId', message: 'must be a string' },
      { path: '/tags', message: 'must be an array' },
    ]);
  });

  it('names only arguments of its field in a path, and gives creations 201', () => {
    for (const family of families) {
      for (const route of compiled[family]) {
        for (const [, name] of route.path.matchAll(/:([A-Za-z]+)/g)) {
          expect(
            route.args.map((a) => a.name),
            `${route.field} :${name}`,
          ).toContain(name);
        }
        if (/^Mutation\.create[A-Z]/.test(route.field) && route.method === 'POST') {
          expect(route.responseStatus, route.field).toBe(201);
        }
      }
    }
  });
});

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
