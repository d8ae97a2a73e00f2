// The declared HTTP routes' access rule: only CDN delivery is public, and the gateway guards exactly the credential
// routes, with their own family's guard.
import { subgraphModules } from '@cp/supergraph';
import type { Express, RequestHandler } from 'express';
import { describe, expect, it } from 'vitest';
import { mountHttpRoutes } from '@cp/host';
import { gatewayHttpRoutes } from './http-routes';

const routes = gatewayHttpRoutes(subgraphModules());

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
      const expected = route.auth === 'credential' ? [guards.get(route.family), handler] : [handler];
      expect(m.handlers).toEqual(expected);
    });
  });
});
