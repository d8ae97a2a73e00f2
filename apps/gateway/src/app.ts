// Assembles the gateway on the host (@cp/host): subgraphs, Apollo gateway, /graphql, REST, events, the read cache;
// returns a server tests can start on port 0.
import { createLogger, loadSubgraphSecret, type Config, type Logger, type SubgraphName } from '@cp/config';
import { EventFeed, sqlProjectDirectory } from '@cp/db';
import {
  familyOnly,
  graphqlBody,
  graphqlInputGuard,
  idempotency,
  lingerAfterEarlyAnswers,
  parsedUrl,
  LiveStreams,
  readBody,
  requestScope,
  sendError,
  sendGraphQLError,
  startIdempotencyCleanup,
  urlGuard,
} from '@cp/edge';
import { AppError } from '@cp/errors';
import { JSON_LIMIT_BYTES, jsonBodyError, type ApiFamily } from '@cp/graphql';
import {
  declaredRoutes,
  mountHttpRoutes,
  packageVersion,
  startHost,
  stages,
  type Host,
  type HostedService,
  type HostParts,
} from '@cp/host';
import type { SubgraphModule } from '@cp/host';
import { registerCacheStats } from '@cp/metrics';
import { AccessWatch, createAuthentication, type Authentication } from '@cp/auth';
import type { NextFunction, Request, Response } from 'express';
import type { GraphQLSchema } from 'graphql';
import { createApollo, OperationCounter } from './graphql/apollo';
import { DirectExecution } from './graphql/direct-execution';
import { PersistedQueries } from './graphql/persisted-queries';
import { TYPED_HTTP_ROUTES } from './typed/typed-http-routes';
import { TypedGraphQL } from '@cp/subgraph-content';
import { documentSizeLimit, responseSizeLimit } from './graphql/armor';
import { contextMiddleware } from './http/context';
import { createGateway, readSupergraph } from './graphql/gateway';
import { adminReads } from './cache/admin-reads';
import { mountDocs } from './docs/mount';
import { gatewayHttpRoutes } from './rest/http-routes';
import { apiHeaders } from './http/api-headers';
import { headAsGet } from './http/head-as-get';
import { clientReadCache } from './cache/client-cache';
import { ReadCache } from './cache/read-cache';
import { followFeed } from './cache/feed-caches';
import { createRestHandler } from '@cp/rest';
import {
  apolloHandler,
  buildSubscriptionSchema,
  EVENT_HTTP_ROUTES,
  startSubscriptionServer,
} from '@cp/subgraph-server';
import { INITIAL_DATA, restApi, subgraphModules } from '@cp/supergraph';

export interface RunningService extends Host {
  /** The published-read cache (undefined with `CACHE=off`); `stats()` for metrics. */
  cache?: ReadCache;
}

const SERVICE_VERSION = packageVersion(__dirname);

export async function startService(config: Config, logger: Logger = createLogger(config)): Promise<RunningService> {
  // Checked before anything starts: remote subgraphs refuse a principal header not signed with it.
  const subgraphSecret = Object.keys(config.subgraphUrls).length
    ? loadSubgraphSecret(config, 'when SUBGRAPH_URLS is set')
    : undefined;
  const modules = subgraphModules();
  let auth!: Authentication;
  let cache: ReadCache | undefined;
  const host = await startHost({
    config,
    logger,
    modules,
    initialData: INITIAL_DATA,
    // Subgraphs served here run their workers here; a remote subgraph's service runs its own (same module object).
    remote: config.subgraphUrls,
    async auth({ db, limiter, secret }) {
      // Principals cached per replica, dropped by access events. In-process access shares this service:
      // one principal cache, and sign-in failures counted in the rate limiter's shared store.
      const { cacheTtlSeconds } = config.auth;
      auth = createAuthentication(config, secret, { cacheTtlSeconds, signInLimiter: limiter.signInLimiter });
      for (const module of modules) await module.bootstrap?.({ config, orm: db.orm, logger });
      return auth;
    },
    http: {
      port: config.http.port,
      version: SERVICE_VERSION,
      front: [headAsGet, requestScope(logger), urlGuard(sendError), apiHeaders()],
      async serve(parts) {
        const served = await serveGateway({ modules, subgraphSecret, auth, ...parts });
        cache = served.cache;
        return served;
      },
    },
  });
  logger.info({ url: host.url }, 'content platform listening');
  return { ...host, cache };
}

interface GatewayParts extends HostParts {
  modules: SubgraphModule[];
  subgraphSecret?: Uint8Array;
  auth: Authentication;
}

/** The gateway's own concerns on the host: Apollo gateway, REST, events (SSE, subscriptions), the read cache. */
async function serveGateway(parts: GatewayParts): Promise<HostedService & { cache?: ReadCache }> {
  const { modules, subgraphSecret, auth, db, broker, dispatcher, limiter, deps, app, server } = parts;
  const { config, logger } = deps;
  const api = restApi();
  // Events announced by every replica's dispatcher (transactional outbox) reach this one through the broker.
  const feed = await new EventFeed(db.orm, broker, logger).open();
  // This replica's own writes reach its subscribers without the feed reading back what the dispatcher just numbered.
  dispatcher.onNumbered((rows) => feed.handOff(rows));
  // Project existence and principals are cached per replica, dropped by the events that change them.
  const projects = sqlProjectDirectory(db.orm);
  followFeed(feed, db.orm.em, [projects, auth.cache]);
  // Access changes (keys, users, roles, projects, organizations) reach every replica through the broker: once the
  // caches dropped what they affect, end the streams that lost their right. Client feeds never
  // carry them.
  const access = new AccessWatch({ orm: db.orm, auth, projects }, (err) =>
    logger.warn({ err }, 're-checking a stream caller failed'),
  );
  feed.onEvent((event) => access.changed(event));
  // Client reads are cached until an event of their project reaches this replica (docs/architecture/read-cache.md).
  const cache = config.cache.enabled
    ? new ReadCache({ maxBytes: config.cache.maxBytes, appliedPosition: () => feed.position })
    : undefined;
  if (cache) {
    registerCacheStats('reads', () => {
      const stats = cache.stats();
      return { hits: stats.hits, misses: stats.misses, size: stats.entries };
    });
    feed.onAnnounced((position) => cache.announced(position));
    feed.onEvent((event) => (event.projectId ? cache.invalidateProject(event.projectId) : cache.invalidateAll()));
  }
  const clientCache = clientReadCache({ cache, cdnMaxAge: config.cache.cdnMaxAge });
  // Each project's typed GraphQL schema, rebuilt when an event of one of its content types reaches this replica.
  const typed = new TypedGraphQL({ em: () => db.orm.em.fork(), cdnUrl: config.http.cdnUrl, logger });
  feed.onEvent((event) => typed.eventArrived(event));

  const inProcess = modules.filter((s) => !config.subgraphUrls[s.name]);
  const local: Partial<Record<SubgraphName, GraphQLSchema>> = {};
  // In-process access shares the gateway's Authentication (`deps.auth`): one principal cache, and sign-in failures counted
  // in the rate limiter's shared store rather than per process.
  for (const subgraph of inProcess) local[subgraph.name] = (await subgraph.build(deps)).schema;
  const operations = new OperationCounter();
  const direct = new DirectExecution(local, operations, () => dispatcher.settle());
  const gateway = createGateway({
    supergraphSdl: readSupergraph(),
    local,
    remote: config.subgraphUrls,
    subgraphSecret,
    didResolveQueryPlan: direct.didResolveQueryPlan,
  });
  let apiSchema: GraphQLSchema | undefined;
  gateway.onSchemaLoadOrUpdate(({ apiSchema: schema }) => (apiSchema = schema));

  // An admin's entry and list reads, answered again while what they show is unchanged (cache/admin-reads.ts); a
  // quarter of the read cache's budget.
  const admin = config.cache.enabled
    ? adminReads({
        routes: { entry: api.routes['Query.content'].app!, list: api.routes['Query.contents'].app! },
        em: db.orm.em,
        maxBytes: Math.floor(config.cache.maxBytes / 4),
      })
    : undefined;
  if (admin)
    registerCacheStats('admin-reads', () => {
      const stats = admin.stats();
      return { hits: stats.hits, misses: stats.misses, size: stats.entries };
    });
  lingerAfterEarlyAnswers(server);
  const streams = new LiveStreams();
  const persistedQueries = new PersistedQueries();
  const apollo = createApollo(direct.wrap(gateway), operations, persistedQueries);
  await apollo.start();
  if (!apiSchema) throw new Error('The gateway did not load the supergraph.');

  const contextDeps = { orm: db.orm, auth, projects };
  const idempotent = (body: 'raw' | 'parsed' | 'none', onError: (res: Response, err: unknown) => void) =>
    idempotency({
      orm: db.orm,
      logger,
      body,
      graphql: body === 'parsed',
      // A mutation sent as a persisted query's hash: its text from Apollo's store (Idempotency-Key needs to read it).
      persistedQuery: (hash) => persistedQueries.textOf(hash),
      onError,
    });
  const idempotencyCleanup = startIdempotencyCleanup(db.orm, logger);
  const subscriptions = startSubscriptionServer({
    server,
    schema: buildSubscriptionSchema(apiSchema, feed),
    limiter,
    access,
    apollo,
    ...contextDeps,
  });
  // OpenAPI documents, /docs and the GraphQL IDE: public, before any authentication.
  mountDocs(app, {
    config,
    schema: apiSchema,
    api,
    httpRoutes: gatewayHttpRoutes(modules),
    version: SERVICE_VERSION,
  });
  app.use(
    '/graphql',
    stages(
      graphqlBody(JSON_LIMIT_BYTES),
      graphqlInputGuard(sendGraphQLError),
      contextMiddleware(contextDeps, limiter.onAuthFailure(sendGraphQLError)),
      limiter.middleware(sendGraphQLError),
      documentSizeLimit(sendGraphQLError),
      idempotent('parsed', sendGraphQLError),
      clientCache.graphql,
      responseSizeLimit(sendGraphQLError, config.http.maxResponseBytes, (hash) => persistedQueries.textOf(hash)),
      apolloHandler(apollo),
    ),
  );
  // REST first, so that the router tests its two mounts before the HTTP routes' dozens of layers on every REST request;
  // a request addressed to an HTTP route (by method and path) passes on to it.
  const isDeclared = declaredRoutes(gatewayHttpRoutes(modules));
  const declared = (req: Request) => {
    try {
      return isDeclared(req.method, parsedUrl(req).path);
    } catch {
      return false; // a malformed URL: the REST pipeline answers it
    }
  };
  const execute = direct.restExecutor(apiSchema, apollo);
  for (const family of ['app', 'api'] as const) {
    const rest = createRestHandler({ family, schema: apiSchema, api, execute });
    // Client reads come from the published-read cache; admin POSTs honour Idempotency-Key.
    const familyMiddleware =
      family === 'api' ? [clientCache.rest] : [...(admin ? [admin.serve] : []), idempotent('raw', sendError)];
    const pipeline = stages(
      contextMiddleware(contextDeps, limiter.onAuthFailure(sendError)),
      limiter.middleware(sendError),
      readBody(JSON_LIMIT_BYTES),
      ...familyMiddleware,
      responseSizeLimit(sendError, config.http.maxResponseBytes),
      rest,
    );
    app.use(`/${family}/v1`, (req, res, next) => (declared(req) ? next() : pipeline(req, res, next)));
  }
  // The modules' HTTP routes (uploads, CDN) for every subgraph, remote ones included: clients only know the
  // gateway's address, and the handlers work on the shared database and DATA_DIR. Then the event routes.
  const authenticated = (family: ApiFamily, send = sendError) => [
    contextMiddleware(contextDeps, limiter.onAuthFailure(send)),
    limiter.middleware(send),
    familyOnly(family, send),
    // Multipart uploads take Idempotency-Key too (fingerprinted without their body, see idempotency.ts).
    ...(family === 'app' ? [idempotent('none', send)] : []),
  ];
  // The OpenAPI documents describe the same declarations (gatewayHttpRoutes); the contract test walks them here.
  mountHttpRoutes(
    app,
    modules.flatMap((s) => s.httpRoutes ?? []),
    deps,
    (family) => authenticated(family),
  );
  mountHttpRoutes(app, EVENT_HTTP_ROUTES, { feed, access, streams }, (family) => authenticated(family));
  // GraphQL clients read refusals in `errors[]`, the typed endpoint's included.
  const typedDeps = { typed, cache: clientCache, maxResponseBytes: config.http.maxResponseBytes };
  mountHttpRoutes(app, TYPED_HTTP_ROUTES, typedDeps, (family) => authenticated(family, sendGraphQLError));
  app.use((req: Request, res: Response) =>
    sendError(res, new AppError('NOT_FOUND', `No route ${req.method} ${req.path}.`)),
  );
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => sendError(res, jsonBodyError(err)));

  return {
    cache,
    metrics: {
      feedPosition: () => feed.position,
      sseStreams: () => streams.size,
      wsConnections: () => subscriptions.connections,
      wsSubscriptions: () => subscriptions.subscriptions,
    },
    async drain(deadline) {
      idempotencyCleanup.stop();
      streams.endAll();
      await subscriptions.close(deadline);
    },
    stop: () => apollo.stop(),
    async close() {
      await feed.stop();
      await auth.apiKeys.lastUsed.flush();
    },
  };
}
