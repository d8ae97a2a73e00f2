// Starts what every HTTP process of the platform runs the same way, and closes it in one order: the database, the
// event outbox, the rate limiter, the modules' workers, /health, /ready and metrics, the drain on shutdown.
import { loadJwtSecret, type Config, type Logger, type SubgraphName } from '@cp/config';
import { createBroker, EventDispatcher, onEventsCommitted, openDatabase } from '@cp/db';
import type { Database, EventBroker } from '@cp/db';
import type { Authenticator } from '@cp/graphql';
import {
  answerParserRefusals,
  createRateLimiter,
  drainDeadline,
  HttpDrain,
  Readiness,
  registerRuntimeMetrics,
  requestMetrics,
  headRules,
  serveMetrics,
  type RateLimiter,
  type RuntimeMetricsSources,
} from '@cp/edge';
import express, { type Express, type RequestHandler } from 'express';
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { expressServer } from './express-server';
import { healthHandler } from './health';
import { stages } from './stages';
import { startWorkers, type SubgraphDeps, type SubgraphModule } from './module';

/** The running parts a service builds on (`HostOptions.http.serve`). */
export interface HostParts {
  db: Database;
  broker: EventBroker;
  dispatcher: EventDispatcher;
  limiter: RateLimiter;
  /** What the modules get; `auth` is what `HostOptions.auth` returned. */
  deps: SubgraphDeps;
  /** /health, /ready and /metrics are mounted; the service mounts the rest. */
  app: Express;
  /** Not listening yet: WebSocket servers attach here. */
  server: Server;
}

/** What a service hands back to the host: its steps in the host's close order. */
export interface HostedService {
  /** Runtime metrics beyond the database pool (open streams, the feed's position). */
  metrics?: Omit<RuntimeMetricsSources, 'orm'>;
  /** While the HTTP server drains: end long-lived connections (streams, WebSockets) by `deadline`. */
  drain?(deadline: number): Promise<void>;
  /** Once the drain is over and no request runs: stop Apollo. */
  stop(): Promise<void>;
  /** After the workers and the dispatcher, before the broker, limiter and database close: the service's own state. */
  close?(): Promise<void>;
}

export interface HostOptions {
  config: Config;
  logger: Logger;
  /** The modules whose tables this process opens and whose HTTP routes it may serve. */
  modules: SubgraphModule[];
  /** A packed, fully migrated embedded data directory a first start unpacks instead of running initdb (the gateway's). */
  initialData?: string;
  /** Modules served by another process: their workers and metrics run there, not here (`SUBGRAPH_URLS`). */
  remote?: Partial<Record<SubgraphName, string>>;
  /** Builds `SubgraphDeps.auth` (`@cp/auth`'s `createAuthentication`) once the database and the limiter are up. */
  auth(parts: Pick<HostParts, 'db' | 'limiter'> & Omit<SubgraphDeps, 'auth'>): Authenticator | Promise<Authenticator>;
  http: {
    port: number;
    /** What `/health` reports as `version`. */
    version: string;
    /**
     * The stages every request passes first, /health and /ready too (request ids, input guards), after request
     * metrics: one router layer, so a request pays for the router's matching once for all of them.
     */
    front?: RequestHandler[];
    serve(parts: HostParts): Promise<HostedService>;
  };
}

export interface Host {
  url: string;
  server: Server;
  db: Database;
  logger: Logger;
  /** Shutdown's grace window: `/ready` 503 and `Connection: close`, still serving (see `exitGracefullyOnSignals`). */
  retire(): void;
  /** Graceful: stop accepting, finish in-flight requests, end streams, stop workers; `timeoutMs` bounds the drain. */
  close(timeoutMs?: number): Promise<void>;
}

/** The `version` of the package.json beside a service's `dist/` folder. */
export function packageVersion(distDir: string): string {
  return JSON.parse(readFileSync(join(distDir, '../package.json'), 'utf8')).version;
}

export async function startHost({
  config,
  logger,
  modules,
  initialData,
  remote = {},
  auth,
  http,
}: HostOptions): Promise<Host> {
  const secret = loadJwtSecret(config);
  const db = await openDatabase({ config, modules: modules.map((m) => m.database), logger, initialData });
  // Transactional outbox: positions assigned right after this process's commits, announced to every replica.
  const databaseUrl = db.embedded ? undefined : config.database.url;
  const broker = await createBroker({
    redisUrl: config.redisUrl,
    natsUrl: config.natsUrl,
    databaseUrl,
    logger,
    brokers: config.brokers,
  });
  const dispatcher = new EventDispatcher(db.orm, broker, logger).start();
  onEventsCommitted(db.orm.em, () => dispatcher.kick());
  // One limiter for every host (same store, same budgets).
  const limiter = await createRateLimiter({ config, orm: db.orm, embedded: db.embedded, logger });
  const base = { config, logger, orm: db.orm, secret };
  const deps: SubgraphDeps = { ...base, auth: await auth({ ...base, db, limiter }) };
  const workers = startWorkers(
    modules.filter((m) => !remote[m.name]),
    deps,
    {
      onCommit: (listener) => onEventsCommitted(db.orm.em, listener),
      onAnnounce: (listener) => broker.subscribe(listener),
    },
  );

  const app = express();
  app.disable('x-powered-by');
  headRules(app.response);
  const readiness = new Readiness();
  const drain = new HttpDrain(readiness);
  const server = expressServer(app, config.http);
  answerParserRefusals(server);
  drain.attach(server);
  app.use(stages(requestMetrics(), ...(http.front ?? [])));
  app.get('/health', healthHandler(db, broker, http.version));
  app.get(
    '/ready',
    readiness.handler(() => db.ping(), {
      // Out of disk: writes answer 507 while reads work; out of memory or connections: 503s that pass as load drops.
      database: () => {
        const out = db.exhausted();
        return out === undefined ? true : out === 'disk' ? 'full' : 'exhausted';
      },
      broker: () => broker.connected,
      redis: () => limiter.storeUp(),
    }),
  );
  const metricsServer = await serveMetrics(app, config, logger);
  const service = await http.serve({ db, broker, dispatcher, limiter, deps, app, server });
  registerRuntimeMetrics({ orm: db.orm, ...service.metrics });
  server.on('request', drain.listener(app));

  await new Promise<void>((resolve) => server.listen(http.port, config.http.host, resolve));
  const url = `http://${config.http.host}:${(server.address() as AddressInfo).port}`;
  readiness.ready();
  return {
    url,
    server,
    db,
    logger,
    retire: () => drain.retire(),
    async close(timeoutMs = config.shutdown.timeoutMs) {
      // Outside in: stop accepting and drain (long-lived connections end meanwhile), stop Apollo once no request runs,
      // then the background work, whose last events the dispatcher numbers before the broker that announces them and
      // the limiter and database everything above used close.
      const deadline = drainDeadline(Date.now(), timeoutMs);
      const drained = drain.drain(server, deadline);
      await service.drain?.(deadline);
      if (!(await drained)) logger.warn('requests still running at the shutdown deadline were cut');
      await service.stop();
      await workers.stop();
      const lastDispatch = 'last event dispatch failed; another replica or the next start numbers them';
      await dispatcher.flush().catch((err) => logger.warn({ err }, lastDispatch));
      await dispatcher.stop();
      await service.close?.();
      await broker.close();
      await limiter.close();
      await db.close();
      metricsServer?.close();
    },
  };
}
