// The OpenAPI documents describe exactly the routes that exist: sofa's REST routes and the declared HTTP routes.
import type { ApiFamily } from '@cp/graphql';
import { BASE_PATHS, buildOpenApiDocument, documentFamily, openApiPath } from '@cp/rest';
import { restApi, SCHEMA_DIR, subgraphModules } from '@cp/supergraph';
import { buildSchema } from 'graphql';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OpenAPIV3 } from 'openapi-types';
import { describe, expect, it } from 'vitest';
import { gatewayHttpRoutes } from '../../rest/http-routes';

const FAMILIES: ApiFamily[] = ['app', 'api'];
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
/** Where a declared route's path must start: under its API family's base path, or the CDN's. */
const PREFIX = { app: '/app/v1/', api: '/api/v1/', cdn: '/cdn/' };

// The client schema the gateway serves (schema/api.graphql, kept equal to the code by compose.test.ts).
const schema = buildSchema(readFileSync(join(SCHEMA_DIR, 'api.graphql'), 'utf8'));
const httpRoutes = gatewayHttpRoutes(subgraphModules());
const docs = Object.fromEntries(
  FAMILIES.map((family) => [
    family,
    buildOpenApiDocument({ family, schema, api: restApi(), httpRoutes, version: 'test', publicUrl: '' }),
  ]),
) as Record<ApiFamily, OpenAPIV3.Document>;

const key = (method: string, path: string) => `${method.toUpperCase()} ${path}`;

/** Every operation of a document, as `METHOD /path`. */
function documented(doc: OpenAPIV3.Document): string[] {
  return Object.entries(doc.paths).flatMap(([path, item]) => METHODS.filter((m) => item?.[m]).map((m) => key(m, path)));
}

/** The operations sofa derives for a family from every module's REST routes (aliases share their route's operation). */
function restOperations(family: ApiFamily): Set<string> {
  const routes = Object.values(restApi().routes).flatMap((byFamily) => (byFamily[family] ? [byFamily[family]] : []));
  return new Set(routes.map((route) => key(route.method, BASE_PATHS[family] + openApiPath(route.path))));
}

describe('OpenAPI documents and the declared HTTP routes', () => {
  it('the modules declare HTTP routes (uploads and CDN delivery of two modules), and the gateway its event routes', () => {
    expect(subgraphModules().flatMap((m) => m.httpRoutes ?? []).length).toBeGreaterThanOrEqual(4);
    expect(httpRoutes.filter((r) => r.family === 'cdn').length).toBeGreaterThanOrEqual(2);
  });

  it('every declared HTTP route appears, as declared, in the document of its family and in no other', () => {
    for (const route of httpRoutes) {
      expect(route.path.startsWith(PREFIX[route.family]), route.path).toBe(true);
      const family = documentFamily(route);
      const path = openApiPath(route.path);
      const operation = docs[family].paths[path]?.[route.method] as OpenAPIV3.OperationObject | undefined;
      expect(operation, `${family} ${key(route.method, path)}`).toBeDefined();
      expect(operation!.operationId).toBe(route.operation.operationId);
      expect(operation!.summary).toBe(route.operation.summary);
      expect(Object.keys(operation!.responses).sort()).toEqual(Object.keys(route.operation.responses).sort());
      // Public routes need no credential; the others the family's (the document's default security).
      expect(operation!.security).toEqual(route.auth === 'public' ? [] : undefined);
      for (const other of FAMILIES.filter((f) => f !== family)) {
        expect(docs[other].paths[path]?.[route.method], `${other} ${key(route.method, path)}`).toBeUndefined();
      }
    }
  });

  it.each(FAMILIES)('%s: every operation that is not a sofa route is a declared HTTP route', (family) => {
    const rest = restOperations(family);
    const declared = new Set(
      httpRoutes.filter((r) => documentFamily(r) === family).map((r) => key(r.method, openApiPath(r.path))),
    );
    const undeclared = documented(docs[family]).filter((op) => !rest.has(op) && !declared.has(op));
    expect(undeclared).toEqual([]);
    // And nothing is both: a declared route never shadows a REST route.
    expect([...declared].filter((op) => rest.has(op))).toEqual([]);
  });

  it.each(FAMILIES)('%s: operation ids are unique', (family) => {
    const ids = Object.values(docs[family].paths).flatMap((item) =>
      METHODS.flatMap((m) => (item?.[m] ? [item[m].operationId] : [])),
    );
    expect(ids.length).toBeGreaterThan(0);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
