// One module object per subgraph: everything a host (the gateway or a standalone service) needs to run it.
import type { Config, Logger, SubgraphName } from '@cp/config';
import type { BackgroundWorker, DatabaseModule } from '@cp/db';
import type { BuiltSubgraph, RestRoutes, RestShape, RouteFamily } from '@cp/graphql';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { RequestHandler } from 'express';

export type { BackgroundWorker } from '@cp/db';

/** What building the schema may use: no database, so `npm run compose` can print the SDL without one. */
export interface BuildDeps {
  config: Config;
  /** The service secret (JWT signing, principal header, derived keys). */
  secret: Uint8Array;
  /**
   * The host's authentication service (the access subgraph's `AuthService`), so sign-in throttling and the principal
   * cache are one per process; the access module builds its own when absent (`npm run compose`).
   */
  auth?: unknown;
}

/** What a host hands every module at run time; a module builds its own services from it. */
export interface SubgraphDeps extends BuildDeps {
  logger: Logger;
  orm: MikroORM;
}

/**
 * A plain HTTP route beside GraphQL (uploads, CDN delivery). With `family`, the host authenticates the caller first
 * (same credentials, rate limits and family rules as REST: `res.locals.context` holds the request's `Context`);
 * without it, the route is public and the handler reads what it needs itself.
 */
export interface HttpRoute {
  method: 'get' | 'post';
  path: string;
  family?: RouteFamily;
  handler: RequestHandler;
}

export interface SubgraphModule {
  name: SubgraphName;
  database: DatabaseModule;
  /** Root fields exposed as REST routes (mounted by the gateway with sofa). */
  routes: RestRoutes;
  /** How REST answers shape this module's types (the gateway unions every module's). */
  restShape?: RestShape;
  build(deps: BuildDeps): Promise<BuiltSubgraph>;
  http?(deps: SubgraphDeps): HttpRoute[];
  workers?(deps: SubgraphDeps): BackgroundWorker[];
  /** Registers the module's own metrics (`@cp/metrics`) where its workers run. */
  metrics?(deps: SubgraphDeps): void;
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
