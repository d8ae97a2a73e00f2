// One module object per subgraph: everything a host (the gateway or a standalone service) needs to run it.
import { pathToRegexp } from 'path-to-regexp';
import type { Config, Logger, SubgraphName } from '@cp/config';
import type { BackgroundWorker, DatabaseModule, ProjectTransfer } from '@cp/db';
import type { ApiFamily, Authenticator, BuiltSubgraph, RestRoutes, RestShape } from '@cp/graphql';
import type { MikroORM } from '@mikro-orm/postgresql';
import { assertDeclaredParameters, parsedUrl } from '@cp/edge';
import type { Express, RequestHandler } from 'express';
import type { OpenAPIV3 } from 'openapi-types';

export type { BackgroundWorker } from '@cp/db';

/**
 * What building the schema may use: no database, so `npm run compose` can print the SDL without one. `Auth` is the
 * authentication service a module asks its host for (the access module: `@cp/auth`'s `Authentication`).
 */
export interface BuildDeps<Auth extends Authenticator = Authenticator> {
  config: Config;
  /** The service secret (JWT signing, principal header, derived keys). */
  secret: Uint8Array;
  /**
   * The host's authentication service (`@cp/auth`'s `Authentication`), so sign-in throttling and the principal
   * cache are one per process; the access module builds its own when absent (`npm run compose`).
   */
  auth?: Auth;
}

/** What a host hands every module at run time; a module builds its own services from it. */
export interface SubgraphDeps extends BuildDeps {
  auth: Authenticator;
  logger: Logger;
  orm: MikroORM;
}

/**
 * Where an HTTP route answers and is documented: an API family (`/app/v1` admin, `/api/v1` client), or CDN delivery
 * (`/cdn/…`, public, documented in the client API's OpenAPI document).
 */
export type HttpRouteFamily = ApiFamily | 'cdn';

/**
 * An HTTP route beside GraphQL and its REST routes (uploads, CDN delivery, event streams): everything a host needs to
 * mount it and to document it, declared next to its handler. Hosts add nothing of their own: the gateway mounts and
 * documents exactly what the modules declare (docs/architecture/README.md).
 *
 * `auth: 'credential'`: the host authenticates the caller first with the family's credential (same credentials, rate
 * limits and family rules as REST; `res.locals.context` holds the request's `Context`), and the handler checks the
 * caller's rights, and answers a whole body through `@cp/edge`'s `respond` (an `Idempotency-Key` upload's answer is
 * kept by it). `auth: 'public'`: anyone may call; the handler reads what it needs itself. CDN routes are public.
 * `Deps`: what `handler` builds the request handler from (a module's: `SubgraphDeps`).
 */
export type HttpRoute<Deps = SubgraphDeps> = {
  method: 'get' | 'post';
  /** Express path (`:param`), absolute: under the family's base path, or `/cdn/`. */
  path: string;
  /**
   * The OpenAPI 3.0 operation (summary, parameters, request body, responses with the error envelope). Path
   * parameters the operation leaves out are added as required strings; a `$ref` to a schema the family's document
   * lacks becomes a free-form object.
   */
  operation: OpenAPIV3.OperationObject;
  /** Builds the request handler once per host, when the route is mounted. */
  handler(deps: Deps): RequestHandler;
} & ({ family: ApiFamily; auth: 'credential' | 'public' } | { family: 'cdn'; auth: 'public' });

/**
 * Whether a request is addressed to one of `routes`, decided by one regular expression per method instead of one
 * router layer per route (Express tests every layer in front of a handler on every request): a mount in front of the
 * routes lets their requests through. The patterns are the router's own (path-to-regexp, case-insensitive, a
 * trailing slash allowed), tested on the request's path as sent; HEAD is matched as GET, as the router does.
 */
export function declaredRoutes(routes: readonly Pick<HttpRoute<never>, 'method' | 'path'>[]) {
  const byMethod = new Map<string, RegExp>();
  for (const method of new Set(routes.map((route) => route.method))) {
    const sources = routes
      .filter((route) => route.method === method)
      .map((route) => `(?:${pathToRegexp(route.path, { sensitive: false, end: true, trailing: true }).regexp.source})`);
    byMethod.set(method.toUpperCase(), new RegExp(sources.join('|'), 'i'));
  }
  return (method: string, pathname: string): boolean =>
    byMethod.get(method === 'HEAD' ? 'GET' : method)?.test(pathname) ?? false;
}

/**
 * Mounts routes in order, each handler built once from `deps`; `authenticated(family)` is what the host puts in front
 * of a credential route (its caller check, family rule and idempotency), so every host mounts a route alike.
 */
export function mountHttpRoutes<Deps>(
  app: Express,
  routes: readonly HttpRoute<Deps>[],
  deps: Deps,
  authenticated: (family: ApiFamily) => RequestHandler[],
): void {
  for (const route of routes) {
    const guard = route.auth === 'credential' ? authenticated(route.family) : [];
    app[route.method](route.path, ...guard, declaredParametersOnly(route.operation), route.handler(deps));
  }
}

/**
 * A subgraph as its hosts run it. `Auth` is the authentication service its schema needs; the process that hosts the
 * module provides that very service (`@cp/auth`'s `Authentication`, from `createAuthentication`) as `auth`.
 */
export interface SubgraphModule<Auth extends Authenticator = Authenticator> {
  name: SubgraphName;
  database: DatabaseModule;
  /** Root fields exposed as REST routes (mounted by the gateway with sofa). */
  routes: RestRoutes;
  /** How REST answers shape this module's types (the gateway unions every module's). */
  restShape?: RestShape;
  build(deps: BuildDeps<Auth>): Promise<BuiltSubgraph>;
  /**
   * HTTP routes beside GraphQL, as data. The gateway serves every module's, a remote subgraph's (`SUBGRAPH_URLS`)
   * included: clients know only the gateway's address, and the handlers need no more than the shared database and
   * `DATA_DIR`, which the gateway migrates and opens for every module. A standalone service serves its own module's as
   * well, for callers that reach it directly; so a remote subgraph's routes answer at both addresses, from one handler.
   */
  httpRoutes?: readonly HttpRoute[];
  workers?(deps: SubgraphDeps): BackgroundWorker[];
  /** Registers the module's own metrics (`@cp/metrics`) where its workers run. */
  metrics?(deps: SubgraphDeps): void;
  /** First-run setup of an empty database, once migrated (the access module: the first administrator). */
  bootstrap?(deps: Pick<SubgraphDeps, 'config' | 'orm'> & { logger?: Logger }): Promise<void>;
  /** The module's part of a project's export and import (`content-platform export` / `import`). */
  transfer?(deps: Pick<BuildDeps, 'config' | 'secret'>): ProjectTransfer;
}

export interface WorkerHooks {
  onCommit(listener: () => void): void;
  onAnnounce(listener: () => void): void;
}

export interface RunningWorkers {
  workers: BackgroundWorker[];
  /** Stops every worker; each finishes its current step first. */
  stop(): Promise<void>;
}

/** Creates, wires and starts the workers of the given modules (and registers their metrics), the same way in every host. */
export function startWorkers(modules: SubgraphModule[], deps: SubgraphDeps, hooks: WorkerHooks): RunningWorkers {
  const workers = modules.flatMap((m) => m.workers?.(deps) ?? []);
  for (const m of modules) m.metrics?.(deps);
  for (const worker of workers) {
    if (worker.kickOn?.includes('commit')) hooks.onCommit(() => worker.kick?.());
    if (worker.kickOn?.includes('announce')) hooks.onAnnounce(() => worker.kick?.());
    worker.start();
    deps.logger.debug({ worker: worker.name }, 'background worker started');
  }
  return {
    workers,
    async stop() {
      await Promise.all(workers.map((w) => w.stop()));
    },
  };
}

/** The route's handler sees only the query parameters its operation declares; any other is 400 naming it. */
function declaredParametersOnly(operation: OpenAPIV3.OperationObject): RequestHandler {
  const declared = new Set(
    (operation.parameters ?? []).flatMap((p) => ('in' in p && p.in === 'query' ? [p.name] : [])),
  );
  return (req, _res, next) => {
    try {
      assertDeclaredParameters(declared, parsedUrl(req).query);
      next();
    } catch (err) {
      next(err);
    }
  };
}
