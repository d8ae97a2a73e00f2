// A REST family's routes, compiled from the modules' declarations: patterns, the field's arguments, and lookup by
// method and path.
import type { ApiFamily, RestRoute, RestRoutes } from '@cp/graphql';
import { filterSchema } from '@graphql-tools/utils';
import type { GraphQLArgument, GraphQLSchema } from 'graphql';

export const BASE_PATHS: Record<ApiFamily, string> = { app: '/app/v1', api: '/api/v1' };

export interface CompiledRoute extends RestRoute {
  field: string;
  pattern: RegExp;
  aliasPattern?: RegExp;
  args: readonly GraphQLArgument[];
}

export function compileRoutes(schema: GraphQLSchema, routes: RestRoutes, family: ApiFamily): CompiledRoute[] {
  return Object.entries(routes).flatMap(([field, byFamily]) => {
    const route = byFamily[family];
    if (!route) return [];
    const [operation, name] = field.split('.');
    const root = operation === 'Query' ? schema.getQueryType() : schema.getMutationType();
    const definition = root?.getFields()[name];
    if (!definition)
      throw new Error(`REST route ${family} ${route.method} ${route.path} names unknown field ${field}.`);
    const toPattern = (path: string) => new RegExp(`^${path.replace(/:[A-Za-z]+/g, '[^/]+')}/?$`);
    return [
      {
        ...route,
        field,
        pattern: toPattern(route.path),
        aliasPattern: route.alias && toPattern(route.alias.path),
        args: definition.args,
      },
    ];
  });
}

/** Root fields anyone may call without a credential: those with a route marked `public` in any family. */
export function publicFields(routes: RestRoutes): ReadonlySet<string> {
  return new Set(
    Object.entries(routes)
      .filter(([, byFamily]) => Object.values(byFamily).some((route) => route?.public))
      .map(([field]) => field),
  );
}

/**
 * The gateway schema cut down to the root fields a family routes (what sofa derives its operations from), without
 * the object fields only GraphQL answers (an entry's `references`, say).
 */
export function restSchema(
  schema: GraphQLSchema,
  routes: CompiledRoute[],
  graphqlOnly: readonly string[] = [],
): GraphQLSchema {
  const fields = new Set(routes.map((r) => r.field));
  const hidden = new Set(graphqlOnly);
  return filterSchema({
    schema,
    rootFieldFilter: (operation, name) => fields.has(`${operation}.${name}`),
    objectFieldFilter: (type, name) => !hidden.has(`${type}.${name}`),
  });
}

/** A family's routes by method, each list in declaration order: what `routeFor` looks requests up in. */
export function routesByMethod(routes: readonly CompiledRoute[]): ReadonlyMap<string, readonly CompiledRoute[]> {
  const byMethod = new Map<string, CompiledRoute[]>();
  for (const r of routes) byMethod.set(r.method, [...(byMethod.get(r.method) ?? []), r]);
  return byMethod;
}

/**
 * The route a request takes (`path` under the family's base path): two operations on one method and path, the
 * alias route wins when its body test holds; else the first route of the method whose pattern matches. HEAD never
 * arrives here: the gateway's front turns it into GET, so every layer answers it as GET.
 */
export function routeFor(
  byMethod: ReadonlyMap<string, readonly CompiledRoute[]>,
  method: string,
  path: string,
  body: Record<string, unknown> | undefined,
): { route: CompiledRoute; aliased: boolean } | undefined {
  const candidates = byMethod.get(method) ?? [];
  const aliased = candidates.find((r) => r.aliasPattern?.test(path) && r.alias!.when(body));
  if (aliased) return { route: aliased, aliased: true };
  const route = candidates.find((r) => r.pattern.test(path));
  return route && { route, aliased: false };
}

/**
 * `If-Match: "3"` (also `W/"3"` or a bare `3`) → 3; `*` matches any revision → undefined. Anything else can't name a
 * revision, so it becomes 0, which no resource has: the write answers 412 with the current revision.
 */
export function revisionFromIfMatch(header: string): number | undefined {
  const first = header.split(',')[0].trim();
  if (first === '*') return undefined;
  const match = /^(?:W\/)?"?(\d{1,9})"?$/.exec(first);
  return match ? Number(match[1]) : 0;
}

/** The OpenAPI document that describes an HTTP route: its API family's; CDN delivery is public, with the client API's. */
export const documentFamily = (route: { family: ApiFamily | 'cdn' }): ApiFamily =>
  route.family === 'cdn' ? 'api' : route.family;
