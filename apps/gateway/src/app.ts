// Assembles the service: database, subgraphs, gateway, /graphql, REST, /health; returns a server tests can start on port 0.
import { createLogger, loadJwtSecret, loadSubgraphSecret, type Config, type Logger, type SubgraphName } from '@cp/config';
import { createBroker, EventDispatcher, EventFeed, onEventsCommitted, onEventsFlushed, openDatabase, sqlProjectDirectory, type Database } from '@cp/db';
import { JSON_LIMIT_BYTES, jsonBodyError, type RouteFamily } from '@cp/graphql';
import { registerCacheStats } from '@cp/metrics';
import { createRateLimiter, drainDeadline, HttpDrain, LiveStreams, Readiness, registerRuntimeMetrics, requestMetrics, retryAfterOn503, serveMetrics } from '@cp/edge';
import { AppError } from '@cp/errors';
import { bootstrap, createAuthService, limiterSignInThrottle } from '@cp/subgraph-access';
import { AccessWatch, buildSubscriptionSchema, startSubscriptionServer, startWorkers, type SubgraphDeps } from '@cp/subgraph-server';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { GraphQLSchema } from 'graphql';
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { apolloHandler, createApollo } from './apollo';
import { DirectReads } from './direct-reads';
import { eventRoutesHandler } from './events/event-routes';
import { documentSizeLimit, responseSizeLimit } from './armor';
import { contextMiddleware } from './context';
import { createGateway, readSupergraph } from './gateway';
import { healthHandler, SERVICE_VERSION } from './health';
import { idempotency, startIdempotencyCleanup } from './idempotency';
import { fastCachedReads } from './read-cache/fast-hits';
import { mountDocs } from './docs/mount';
import { eventRoutes } from './plain-routes';
import { assertJsonDepth, graphqlInputGuard, inputGuard } from './input-guard';
import { apiHeaders } from './api-headers';
import { requestScope } from './request-scope';
import { clientReadCache } from './read-cache/client-cache';
import { ReadCache } from './read-cache/read-cache';
import { announceWritesBeforeAnswering } from './read-cache/announce-writes';
import { assertFamilyPrincipal, createRestHandler } from './rest';
import { answerEarlyRefusals } from './early-answers';
import { sendError, sendGraphQLError } from './send-error';
import { allRoutes, INITIAL_DATA, SUBGRAPHS } from './subgraphs';

export interface RunningService {
  url: string;
  server: Server;
  db: Database;
  logger: Logger;
  /** The published-read cache (undefined with `CACHE=off`); `stats()` for metrics. */
  cache?: ReadCache;
  /** Shutdown's grace window: `/ready` 503 and `Connection: close`, still serving (see `exitGracefullyOnSignals`). */
  retire(): void;
  /** Graceful: stop accepting, finish in-flight requests, end streams, stop workers; `timeoutMs` bounds the drain. */
  close(timeoutMs?: number): Promise<void>;
}

export async function startService(config: Config, logger: Logger = createLogger(config)): Promise<RunningService> {
  const secret = loadJwtSecret(config);
  // Checked before anything starts: remote subgraphs refuse a principal header not signed with it.
  const subgraphSecret = Object.keys(config.subgraphUrls).length ? loadSubgraphSecret(config, 'when SUBGRAPH_URLS is set') : undefined;
  const modules = SUBGRAPHS.map((s) => s.database);
  const db = await openDatabase({ config, modules, logger, initialData: INITIAL_DATA });
  // Principals cached per replica, dropped by access events below (issue 12.4).
  const auth = createAuthService(config, secret, { cacheTtlSeconds: config.auth.cacheTtlSeconds });
  await bootstrap(db.orm.em.fork(), config.admin, logger);

  // Transactional outbox (issue 7): positions assigned after commit, announced to every replica.
  const broker = await createBroker({ redisUrl: config.redisUrl, natsUrl: config.natsUrl, databaseUrl: db.embedded ? undefined : config.database.url, logger });
  const dispatcher = new EventDispatcher(db.orm, broker, logger).start();
  onEventsCommitted(db.orm.em, () => dispatcher.kick());
  const feed = await new EventFeed(db.orm, broker, logger).start();
  const projects = sqlProjectDirectory(db.orm);
  const access = new AccessWatch({ orm: db.orm, auth, projects }, (err) => logger.warn({ err }, 're-checking a stream caller failed'));
  // Access changes (keys, users, roles, projects, organizations) reach every replica through the broker: drop the
  // cached principals, then end the streams that lost their right (issues 12.4, 11.5). Client feeds never carry them.
  feed.onEvent((event) => {
    if (auth.cache.invalidate(event)) access.changed(event);
  });
  // This replica's own access writes drop their entries before the response goes out (no broker round trip).
  onEventsFlushed(db.orm.em, (events) => events.forEach((event) => auth.cache.invalidate(event)));
  // Client reads are cached until an event of their project reaches this replica (issue 12; README "Read cache").
  const cache = config.cache.enabled ? new ReadCache({ maxBytes: config.cache.maxBytes, appliedPosition: () => feed.position }) : undefined;
  if (cache) {
    registerCacheStats('reads', () => {
      const stats = cache.stats();
      return { hits: stats.hits, misses: stats.misses, size: stats.entries };
    });
    feed.onAnnounced((position) => cache.announced(position));
    feed.onEvent((event) => (event.projectId ? cache.invalidateProject(event.projectId) : cache.invalidateAll()));
  }
  const clientCache = clientReadCache({ cache, cdnMaxAge: config.cache.cdnMaxAge });

  // Subgraphs served here run their workers here; a remote subgraph's service runs its own (same module object).
  const deps: SubgraphDeps = { config, logger, orm: db.orm, secret, auth };
  const inProcess = SUBGRAPHS.filter((s) => !config.subgraphUrls[s.name]);
  const workers = startWorkers(inProcess, deps, {
    onCommit: (listener) => onEventsCommitted(db.orm.em, listener),
    onAnnounce: (listener) => broker.subscribe(listener),
  });
  const local: Partial<Record<SubgraphName, GraphQLSchema>> = {};
  // In-process access shares the gateway's AuthService (`deps.auth`): one principal cache, and sign-in failures counted
  // in the rate limiter's shared store (issue 11.3) rather than per process.
  for (const subgraph of inProcess) local[subgraph.name] = (await subgraph.build(deps)).schema;
  const direct = new DirectReads(local);
  const gateway = createGateway({ supergraphSdl: readSupergraph(), local, remote: config.subgraphUrls, subgraphSecret, didResolveQueryPlan: direct.didResolveQueryPlan });
  let apiSchema: GraphQLSchema | undefined;
  gateway.onSchemaLoadOrUpdate(({ apiSchema: schema }) => (apiSchema = schema));

  const limiter = await createRateLimiter({ config, orm: db.orm, embedded: db.embedded, logger });
  auth.signInThrottle = limiterSignInThrottle(limiter.signInLimiter);
  const fastHits = fastCachedReads({ cache, apiKeys: auth.apiKeys, em: db.orm.em, limiter, cdnMaxAge: config.cache.cdnMaxAge, onGraphQLError: sendGraphQLError, logger });
  const app = express();
  app.disable('x-powered-by');
  const readiness = new Readiness();
  const drain = new HttpDrain(readiness);
  // REST and GraphQL POST hits of the published-read cache are answered in front of Express (read-cache/fast-hits.ts).
  const server = createHttpServer(drain.listener(retryAfterOn503(fastHits.listener(app))));
  drain.attach(server);
  answerEarlyRefusals(server);
  const streams = new LiveStreams();
  const apollo = createApollo(direct.wrap(gateway), [announceWritesBeforeAnswering(dispatcher)]);
  await apollo.start();
  if (!apiSchema) throw new Error('The gateway did not load the supergraph.');

  const contextDeps = { orm: db.orm, auth, projects };
  const idempotent = (body: 'raw' | 'parsed' | 'none', onError: (res: Response, err: unknown) => void) =>
    idempotency({ orm: db.orm, logger, body, graphql: body === 'parsed', maxBodyBytes: JSON_LIMIT_BYTES, onError });
  const idempotencyCleanup = startIdempotencyCleanup(db.orm, logger);
  const subscriptions = startSubscriptionServer({ server, schema: buildSubscriptionSchema(apiSchema, feed), limiter, access, apollo, ...contextDeps });
  app.use(requestMetrics());
  app.use(requestScope(logger));
  app.use(inputGuard());
  app.use(['/app/v1', '/api/v1', '/graphql'], apiHeaders());
  app.get('/health', healthHandler(db, broker));
  app.get('/ready', readiness.handler(() => db.ping(), () => broker.connected));
  const metricsServer = await serveMetrics(app, config, logger);
  registerRuntimeMetrics({ orm: db.orm, feedPosition: () => feed.position, sseStreams: () => streams.size, wsConnections: () => subscriptions.connections });
  // OpenAPI documents, /docs and the GraphQL IDE: public, before any authentication.
  mountDocs(app, { config, schema: apiSchema, routes: allRoutes(), version: SERVICE_VERSION });
  app.use(
    '/graphql',
    fastHits.parsedBody,
    express.json({ limit: JSON_LIMIT_BYTES, verify: (_req, _res, buf) => assertJsonDepth(buf.toString('utf8')) }),
    graphqlInputGuard(sendGraphQLError),
    fastHits.graphql,
    contextMiddleware(contextDeps, limiter.onAuthFailure(sendGraphQLError)),
    limiter.middleware(sendGraphQLError),
    documentSizeLimit(sendGraphQLError),
    idempotent('parsed', sendGraphQLError),
    clientCache.graphql,
    responseSizeLimit(sendGraphQLError, config.http.maxResponseBytes),
    apolloHandler(apollo),
  );
  // The modules' plain HTTP routes (uploads, CDN, D8) for every subgraph, remote ones included: clients only know the
  // gateway's address, and the handlers work on the shared database and DATA_DIR.
  const authenticated = (family: RouteFamily) => [
    contextMiddleware(contextDeps, limiter.onAuthFailure(sendError)),
    limiter.middleware(sendError),
    (_req: Request, res: Response, next: NextFunction) => (assertFamilyPrincipal(family, res.locals.context), next()),
    // D17: multipart uploads take Idempotency-Key too (fingerprinted without their body, see idempotency.ts).
    ...(family === 'app' ? [idempotent('none', sendError)] : []),
  ];
  // plain-routes.ts documents these paths in OpenAPI; the contract test walks them against this server.
  for (const route of SUBGRAPHS.flatMap((s) => s.http?.(deps) ?? [])) {
    app[route.method](route.path, ...(route.family ? authenticated(route.family) : []), route.handler);
  }
  for (const family of ['app', 'api'] as const) {
    app.get(
      eventRoutes(family).map((route) => route.path),
      ...authenticated(family),
      eventRoutesHandler(feed, access, streams),
    );
    const rest = createRestHandler({ family, schema: apiSchema, apollo, direct, routes: allRoutes(), maxBodyBytes: JSON_LIMIT_BYTES });
    // Client reads come from the published-read cache (issue 12); admin POSTs honour Idempotency-Key (D17).
    const familyMiddleware = family === 'api' ? [clientCache.rest] : [idempotent('raw', sendError)];
    app.use(`/${family}/v1`, contextMiddleware(contextDeps, limiter.onAuthFailure(sendError)), limiter.middleware(sendError), ...familyMiddleware, responseSizeLimit(sendError, config.http.maxResponseBytes), rest);
  }
  app.use((req: Request, res: Response) => sendError(res, new AppError('NOT_FOUND', `No route ${req.method} ${req.path}.`)));
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => sendError(res, jsonBodyError(err)));

  await new Promise<void>((resolve) => server.listen(config.http.port, config.http.host, resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://${config.http.host}:${port}`;
  readiness.ready();
  logger.info({ url }, 'content platform listening');
  return {
    url,
    server,
    db,
    logger,
    cache,
    retire: () => drain.retire(),
    async close(timeoutMs = config.shutdown.timeoutMs) {
      // Order matters: stop accepting at the HTTP server and drain, then stop Apollo (nothing runs on it any more), then
      // the background work.
      const deadline = drainDeadline(Date.now(), timeoutMs);
      idempotencyCleanup.stop();
      const drained = drain.drain(server, deadline);
      streams.endAll();
      await subscriptions.close(deadline);
      if (!(await drained)) logger.warn('requests still running at the shutdown deadline were cut');
      await apollo.stop();
      await workers.stop();
      await dispatcher.flush().catch((err) => logger.warn({ err }, 'last event dispatch failed; another replica or the next start numbers them'));
      await dispatcher.stop();
      feed.stop();
      await broker.close();
      await auth.apiKeys.lastUsed.flush();
      await limiter.close();
      await db.close();
      metricsServer?.close();
    },
  };
}
