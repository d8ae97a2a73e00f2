// declaredRoutes against Express itself: whatever the method and path, it says "declared" exactly when a route matches.
import express, { type Request, type Response } from 'express';
import fc from 'fast-check';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { declaredRoutes } from './module';

const runs = { seed: Number(process.env.FC_SEED ?? 20261129), numRuns: Number(process.env.FC_RUNS ?? 300) };

/** Route shapes as the modules declare them: family prefixes, parameters, a CDN path with a file name. */
const ROUTES = [
  { method: 'post', path: '/app/v1/organizations/:organizationId/projects/:projectId/assets' },
  { method: 'get', path: '/api/v1/organizations/:organizationId/projects/:projectId/events' },
  { method: 'get', path: '/app/v1/organizations/:organizationId/projects/:projectId/events/stream' },
  { method: 'get', path: '/cdn/:organizationId/:projectId/assets/:assetId/:filename' },
  { method: 'post', path: '/api/v1/organizations/:organizationId/projects/:projectId/graphql' },
] as const;

/** Paths near the routes: their segments, other words, case changes, encodings, empty and trailing segments. */
const segment = fc.oneof(
  fc.constantFrom('app', 'api', 'v1', 'organizations', 'projects', 'assets', 'events', 'stream', 'cdn', 'graphql'),
  fc.constantFrom('APP', 'Events', 'default', 'a.png', '%20', '%2F', 'x%41', '', 'ünï', '(', '*'),
);
const path = fc.oneof(
  fc.array(segment, { minLength: 1, maxLength: 8 }).map((parts) => `/${parts.join('/')}`),
  fc
    .tuple(fc.constantFrom(...ROUTES), fc.array(segment, { minLength: 5, maxLength: 5 }), fc.boolean(), fc.boolean())
    .map(([route, values, slash, shout]) => {
      let i = 0;
      const filled = route.path.replace(/:\w+/g, () => values[i++] || 'x');
      const cased = shout ? filled.replace(/^\/\w+/, (first) => first.toUpperCase()) : filled;
      return slash ? `${cased}/` : cased;
    }),
);

describe('declaredRoutes', () => {
  let server: Server;
  let base = '';
  const declared = declaredRoutes(ROUTES);

  beforeAll(async () => {
    const app = express();
    for (const route of ROUTES) app[route.method](route.path, (_req: Request, res: Response) => res.send('route'));
    app.use((_req: Request, res: Response) => res.status(404).send('none'));
    server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('declares exactly what Express routes (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('GET', 'POST', 'HEAD', 'PUT'), path, async (method, pathname) => {
        const res = await fetch(base + pathname, { method });
        expect(declared(method, pathname), `${method} ${pathname}`).toBe(res.status === 200);
      }),
      runs,
    );
  });
});
