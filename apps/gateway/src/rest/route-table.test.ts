// The platform's REST route table over the committed API schema: path → route, operation and variables as sofa's
// router gave them, body members as GraphQL takes them.
import fc from 'fast-check';
import {
  buildSchema,
  coerceInputValue,
  getNamedType,
  isEnumType,
  isInputObjectType,
  type OperationDefinitionNode,
} from 'graphql';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  BASE_PATHS,
  bodyTypeErrors,
  compileRoutes,
  getVariables,
  operationFor,
  pathParameters,
  restSchema,
  routeFor,
  routesByMethod,
  routeVariables,
  type CompiledRoute,
} from '@cp/rest';
import { restApi, SCHEMA_DIR } from '@cp/supergraph';
import { createSofa, createSofaRouter } from 'sofa-api';

const api = restApi();
const runs = { seed: Number(process.env.FC_SEED ?? 20261125), numRuns: Number(process.env.FC_RUNS ?? 200) };
/** Path parameter values: ids as clients send them, any Unicode, percent-encoded into the path. */
const segment = fc
  .string({ unit: 'grapheme', minLength: 1, maxLength: 12 })
  .filter((s) => !s.includes('\u0000') && s !== '.' && s !== '..');

describe('the route table (every subgraph’s routes over the committed API schema)', () => {
  const schema = buildSchema(readFileSync(join(SCHEMA_DIR, 'api.graphql'), 'utf8'));
  const families = ['app', 'api'] as const;
  const compiled = Object.fromEntries(families.map((f) => [f, compileRoutes(schema, api.routes, f)])) as Record<
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
        const document = operationFor(schema, route.field, api.shape);
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
          schema: restSchema(schema, routes, api.shape.graphqlOnly),
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
        return [
          family,
          {
            routes,
            sofa: createSofaRouter({ ...config, models: [...api.shape.models!], ignore: [...api.shape.ignore!] }),
          },
        ];
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
          const schemaOfFamily = restSchema(schema, routers[family].routes, api.shape.graphqlOnly);
          const document = operationFor(schemaOfFamily, route.field, api.shape);
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
