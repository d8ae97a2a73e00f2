// Assembles the service: database, subgraphs, gateway, /graphql, REST, /health; returns a server tests can start on port 0.
import { expressMiddleware } from '@as-integrations/express5';
import { createLogger, loadJwtSecret, type Config, type Logger, type SubgraphName } from '@cp/config';
import { createBroker, EventDispatcher, EventFeed, onEventsCommitted, openDatabase, sqlProjectDirectory, type Database } from '@cp/db';
import { AppError, toErrorEnvelope } from '@cp/errors';
import type { Context } from '@cp/graphql';
import { bootstrap, createAuthService } from '@cp/subgraph-access';
import { createEmbeddingIndexer, createWebhookWorker } from '@cp/subgraph-content';
import { cdnHandler, createAssetService, uploadHandler } from '@cp/subgraph-assets';
import { componentAssetCdnHandler, componentAssetUploadHandler, createComponentAssetService } from '@cp/subgraph-components';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { GraphQLSchema } from 'graphql';
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApollo } from './apollo';
import { EVENT_PATHS, eventRoutesHandler } from './events/event-routes';
import { buildSubscriptionSchema, startSubscriptionServer } from './events/subscriptions';
import { documentSizeLimit } from './armor';
import { contextMiddleware } from './context';
import { createGateway, readSupergraph } from './gateway';
import { healthHandler } from './health';
import { edgeContext, requestScope } from './request-scope';
import { createRateLimiter } from './rate-limit';
import { assertFamilyPrincipal, createRestHandler } from './rest';
import { sendError } from './send-error';
import { allRoutes, SUBGRAPHS } from './subgraphs';

export interface RunningService {
  url: string;
  server: Server;
  db: Database;
  logger: Logger;
  close(): Promise<void>;
}

const JSON_LIMIT_BYTES = 1024 * 1024;

export async function startService(config: Config, logger: Logger = createLogger(config)): Promise<RunningService> {
  const secret = loadJwtSecret(config);
  const db = await openDatabase({ config, modules: SUBGRAPHS.map((s) => s.database), logger });
  const auth = createAuthService(config, secret);
  await bootstrap(db.orm.em.fork(), config.admin, logger);

  // Transactional outbox (issue 7): positions assigned after commit, announced to every replica.
  const broker = await createBroker({ redisUrl: config.redisUrl, natsUrl: config.natsUrl, databaseUrl: db.embedded ? undefined : config.database.url, logger });
  const dispatcher = new EventDispatcher(db.orm, broker, logger).start();
  onEventsCommitted(db.orm.em, () => dispatcher.kick());
  const feed = await new EventFeed(db.orm, broker, logger).start();
  const webhooks = createWebhookWorker(config, db.orm, logger).start();
  broker.subscribe(() => webhooks.kick());
  const embeddings = createEmbeddingIndexer(config, db.orm, logger)?.start();
  onEventsCommitted(db.orm.em, () => embeddings?.kick());

  const local: Partial<Record<SubgraphName, GraphQLSchema>> = {};
  for (const subgraph of SUBGRAPHS) {
    if (!config.subgraphUrls[subgraph.name]) local[subgraph.name] = (await subgraph.build({ config, auth })).schema;
  }
  const gateway = createGateway({ supergraphSdl: readSupergraph(), local, remote: config.subgraphUrls, secret });
  let apiSchema: GraphQLSchema | undefined;
  gateway.onSchemaLoadOrUpdate(({ apiSchema: schema }) => (apiSchema = schema));

  const app = express();
  app.disable('x-powered-by');
  const server = createHttpServer(app);
  const apollo = createApollo(gateway, server);
  await apollo.start();
  if (!apiSchema) throw new Error('The gateway did not load the supergraph.');

  const contextDeps = { orm: db.orm, auth, projects: sqlProjectDirectory(db.orm) };
  const limiter = await createRateLimiter({ config, orm: db.orm, embedded: db.embedded, logger });
  const subscriptions = startSubscriptionServer({ server, schema: await buildSubscriptionSchema(feed), limiter, ...contextDeps });
  app.use(requestScope(logger));
  app.get('/health', healthHandler(db));
  app.use(
    '/graphql',
    express.json({ limit: JSON_LIMIT_BYTES }),
    contextMiddleware(contextDeps, limiter.onAuthFailure(sendGraphQLError)),
    limiter.middleware(sendGraphQLError),
    documentSizeLimit(sendGraphQLError),
    expressMiddleware(apollo, { context: async ({ res }) => res.locals.context as Context }),
  );
  // Multipart upload and CDN delivery are plain HTTP (D8); everything else is GraphQL-derived REST.
  const assets = createAssetService(config);
  const componentAssets = createComponentAssetService(config);
  const adminUpload = [
    contextMiddleware(contextDeps, limiter.onAuthFailure(sendError)),
    limiter.middleware(sendError),
    (_req: Request, res: Response, next: NextFunction) => (assertFamilyPrincipal('app', res.locals.context), next()),
  ];
  const project = '/app/v1/organizations/:organizationId/projects/:projectId';
  app.post(`${project}/assets`, ...adminUpload, uploadHandler(assets, config.http.cdnUrl));
  app.post(`${project}/components/:componentId/assets`, ...adminUpload, componentAssetUploadHandler(componentAssets, config.http.cdnUrl));
  app.get('/cdn/:organizationId/:projectId/assets/:assetId/:filename', cdnHandler(db.orm, assets));
  app.get('/cdn/:organizationId/:projectId/component-assets/:assetId/:filename', componentAssetCdnHandler(db.orm, componentAssets));
  for (const family of ['app', 'api'] as const) {
    app.get(
      EVENT_PATHS.map((path) => `/${family}/v1/organizations/:organizationId/projects/:projectId${path}`),
      contextMiddleware(contextDeps, limiter.onAuthFailure(sendError)),
      limiter.middleware(sendError),
      (_req: Request, res: Response, next: NextFunction) => (assertFamilyPrincipal(family, res.locals.context), next()),
      eventRoutesHandler(feed),
    );
    const rest = createRestHandler({ family, schema: apiSchema, apollo, routes: allRoutes(), maxBodyBytes: JSON_LIMIT_BYTES });
    app.use(`/${family}/v1`, contextMiddleware(contextDeps, limiter.onAuthFailure(sendError)), limiter.middleware(sendError), rest);
  }
  app.use((req: Request, res: Response) => sendError(res, new AppError('NOT_FOUND', `No route ${req.method} ${req.path}.`)));
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => sendError(res, bodyParserError(err)));

  await new Promise<void>((resolve) => server.listen(config.http.port, config.http.host, resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://${config.http.host}:${port}`;
  logger.info({ url }, 'content platform listening');
  return {
    url,
    server,
    db,
    logger,
    async close() {
      await subscriptions.close();
      await apollo.stop();
      await dispatcher.stop();
      await webhooks.stop();
      await embeddings?.stop();
      await broker.close();
      await limiter.close();
      await db.close();
    },
  };
}

/** GraphQL clients read `errors[]`; the status still follows D4. */
function sendGraphQLError(res: Response, err: unknown): void {
  const { status, body } = toErrorEnvelope(err, edgeContext());
  const { code, message, details } = body.error;
  res.status(status).json({ errors: [{ message, extensions: details ? { code, details } : { code } }] });
}

/** express.json() failures: malformed JSON is 400, an oversized body 413; anything else stays internal. */
function bodyParserError(err: unknown): unknown {
  const type = (err as { type?: string }).type;
  if (type === 'entity.parse.failed') return new AppError('BAD_REQUEST', 'The body is not valid JSON.');
  if (type === 'entity.too.large') return new AppError('PAYLOAD_TOO_LARGE', undefined, { limit: JSON_LIMIT_BYTES });
  return err;
}
