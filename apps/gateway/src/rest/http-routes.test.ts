// The declared HTTP routes' access rule: only CDN delivery is public, and the gateway guards exactly the credential
// routes, with their own family's guard; a query parameter a route doesn't declare is refused.
import { subgraphModules } from '@cp/supergraph';
import type { Express, RequestHandler } from 'express';
import express from 'express';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mountHttpRoutes } from '@cp/host';
import { gatewayHttpRoutes } from './http-routes';
import { sendError } from '@cp/edge';

const routes = gatewayHttpRoutes(subgraphModules());
const guardless = () => [];

describe('declared HTTP routes', () => {
  it('need a credential everywhere but under /cdn/ (uploads and event streams are never public)', () => {
    expect(routes.length).toBeGreaterThanOrEqual(10);
    for (const { path, family, auth } of routes) {
      const expected = path.startsWith('/cdn/')
        ? { path, family: 'cdn', auth: 'public' }
        : { path, family: path.startsWith('/app/v1/') ? 'app' : 'api', auth: 'credential' };
      expect({ path, family, auth }).toEqual(expected);
    }
  });

  it('are mounted with their family’s guard before the handler exactly when they need a credential', () => {
    const mounted: { method: string; path: string; handlers: unknown[] }[] = [];
    const app = {
      get: (path: string, ...handlers: unknown[]) => mounted.push({ method: 'get', path, handlers }),
      post: (path: string, ...handlers: unknown[]) => mounted.push({ method: 'post', path, handlers }),
    } as unknown as Express;
    const guards = new Map<string, RequestHandler>();
    const guard = (family: string) => {
      if (!guards.has(family)) guards.set(family, (() => undefined) as RequestHandler);
      return [guards.get(family)!];
    };
    const handler: RequestHandler = () => undefined;
    const stubbed = routes.map((r) => ({ ...r, handler: () => handler }));
    mountHttpRoutes(app, stubbed, undefined as never, guard);
    expect(mounted.map((m) => [m.method, m.path])).toEqual(routes.map((r) => [r.method, r.path]));
    mounted.forEach((m, i) => {
      const route = routes[i];
      // Between the guard and the handler: the check that refuses query parameters the route doesn't declare.
      const expected = route.auth === 'credential' ? [guards.get(route.family), handler] : [handler];
      expect([...m.handlers.slice(0, -2), m.handlers.at(-1)]).toEqual(expected);
      expect(m.handlers.at(-2)).toEqual(expect.any(Function));
    });
  });

  it('refuse a query parameter their operation does not declare, 400 naming it, before the handler runs', async () => {
    const app = express();
    let handled = 0;
    const queryNames = (r: (typeof routes)[number]) =>
      (r.operation.parameters ?? []).flatMap((p) => ('in' in p && p.in === 'query' ? [p.name] : []));
    // The image route: it declares query parameters (the transformations), so both answers can be seen.
    const cdn = routes.find((r) => r.family === 'cdn' && queryNames(r).length > 0)!;
    const declared = queryNames(cdn);
    mountHttpRoutes(
      app,
      [{ ...cdn, handler: () => (_req, res) => void (handled++, res.end('ok')) }],
      undefined as never,
      guardless,
    );
    app.use((err: unknown, _req: unknown, res: Parameters<RequestHandler>[1], _next: unknown) => sendError(res, err));
    const server = app.listen(0);
    try {
      const { port } = server.address() as { port: number };
      const path = cdn.path.replace(/:([A-Za-z]+)/g, 'x');
      const unknown = fc
        .string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 10 })
        .filter((name) => !declared.includes(name) && name.trim() === name && !/[&=#+%[\]]/.test(name));
      await fc.assert(
        fc.asyncProperty(unknown, async (name) => {
          const res = await fetch(`http://127.0.0.1:${port}${path}?${encodeURIComponent(name)}=1`);
          expect(res.status, name).toBe(400);
          expect(((await res.json()) as any).error).toMatchObject({
            code: 'BAD_REQUEST',
            details: { parameter: name },
          });
        }),
        { seed: Number(process.env.FC_SEED ?? 42), numRuns: Math.ceil(Number(process.env.FC_RUNS ?? 100) / 4) },
      );
      expect(handled).toBe(0);
      const accepted = await fetch(`http://127.0.0.1:${port}${path}?${declared[0]}=1`);
      expect(await accepted.text(), declared[0]).toBe('ok');
    } finally {
      server.close();
    }
  });
});
