// Runs one subgraph module as its own HTTP service behind our gateway (`SUBGRAPH_URLS`) or any federation gateway.
import 'reflect-metadata';
import { ApolloServer } from '@apollo/server';
import { expressMiddleware } from '@as-integrations/express5';
import { createLogger, DEFAULT_SUBGRAPH_PORTS, loadConfig, loadJwtSecret, loadSubgraphSecret } from '@cp/config';
import { createBroker, EventDispatcher, onEventsCommitted, openDatabase, sqlProjectDirectory } from '@cp/db';
import { createRateLimiter, type RateLimiter, drainDeadline, exitGracefullyOnSignals, HttpDrain, Readiness, registerRuntimeMetrics, requestMetrics, retryAfterOn503, serveMetrics } from '@cp/edge';
import { formatGraphQLError, isInternal, negotiateLanguage, toErrorEnvelope } from '@cp/errors';
import { armorProtection, assertGraphQLLimits, assertJsonDepth, JSON_LIMIT_BYTES, jsonBodyError, type Context } from '@cp/graphql';
import type { Tracing } from '@cp/tracing';
import express, { type NextFunction, type Request, type Response } from 'express';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { callerMiddleware, gatewayCaller, sendGraphQLError, type Authenticator, type Caller } from './caller';
import { startWorkers, type SubgraphDeps, type SubgraphModule } from './module';
import { serveSubscriptions } from './subscriptions';

export * from './module';
export * from './caller';
export * from './events';

export interface ServiceOptions {
  /** Authenticates forwarded client credentials: the access subgraph's `createAuthService` (injected: no package cycle). */
  /** `signInLimiter`: failed sign-ins per account in the shared rate-limit store (the access service's sign-in). */
  authenticator(deps: SubgraphDeps & { signInLimiter: RateLimiter['signInLimiter'] }): Authenticator;
}

/** Starts the module on `SUBGRAPH_PORT` (or its default port) with its HTTP routes and workers; returns its URL. */
export interface RunningSubgraphService {
  url: string;
  /** Shutdown's grace window: `/ready` 503 and `Connection: close`, still serving (see `exitGracefullyOnSignals`). */
  retire(): void;
  /** Graceful: stop accepting, finish in-flight requests, stop Apollo, then the workers and the database. */
  stop(timeoutMs?: number): Promise<void>;
}

export async function runSubgraphService(module: SubgraphModule, options: ServiceOptions): Promise<RunningSubgraphService> {
  const config = loadConfig();
  const logger = createLogger(config, `subgraph-${module.name}`);
  const secret = loadJwtSecret(config);
  const vouch = { secret: loadSubgraphSecret(config, 'to run a subgraph service'), subgraph: module.name };
  const db = await openDatabase({ config, modules: [module.database], logger });
  const projects = sqlProjectDirectory(db.orm);
  // Events this service writes get their positions right after commit, not at the gateway's next poll.
  const broker = await createBroker({ redisUrl: config.redisUrl, natsUrl: config.natsUrl, databaseUrl: config.database.url, logger });
  const dispatcher = new EventDispatcher(db.orm, broker, logger).start();
  onEventsCommitted(db.orm.em, () => dispatcher.kick());
  const base: SubgraphDeps = { config, logger, orm: db.orm, secret };
  // The same limiter as the gateway (same store, same budgets): callers that bring their own credentials spend it here.
  const limiter = await createRateLimiter({ config, orm: db.orm, embedded: db.embedded, logger });
  const auth = options.authenticator({ ...base, signInLimiter: limiter.signInLimiter });
  const deps: SubgraphDeps = { ...base, auth };
  const workers = startWorkers([module], deps, {
    onCommit: (listener) => onEventsCommitted(db.orm.em, listener),
    onAnnounce: (listener) => broker.subscribe(listener),
  });
  const { schema } = await module.build(deps);
  const apollo = new ApolloServer<Context>({
    schema,
    includeStacktraceInErrorResponses: false,
    // Stopped by our shutdown after the HTTP drain, not by Apollo's own SIGTERM handler (operations in flight would fail).
    stopOnTerminationSignals: false,
    formatError(formatted, error) {
      // Codes and details pass through to the gateway; HTTP status stays 200 (stack-facts pitfall 1).
      const result = formatGraphQLError(formatted, error, { requestId: 'subgraph', lang: 'en', variablesFrom: 'body' });
      if (isInternal(result)) logger.error({ err: error }, 'unexpected error');
      return result;
    },
  });
  await apollo.start();

  const callers = (graphql: boolean, onError: (res: Response, err: unknown) => void) =>
    callerMiddleware({ fork: () => db.orm.em.fork(), vouch, auth, limiter, onError, graphql });
  const contextOf = (req: Request, res: Response): Context => ({
    em: res.locals.em,
    principal: (res.locals.caller as Caller).principal,
    requestId: req.header('x-request-id') ?? randomUUID(),
    lang: negotiateLanguage(req.header('accept-language')),
    projects,
  });
  const sendError = (res: Response, err: unknown) => {
    const { status, body } = toErrorEnvelope(err, { requestId: res.getHeader('x-request-id')?.toString() ?? 'subgraph', lang: 'en', variablesFrom: 'body' });
    res.status(status).json(body);
  };

  const app = express();
  app.disable('x-powered-by');
  const readiness = new Readiness();
  const drain = new HttpDrain(readiness);
  app.use(requestMetrics());
  app.get('/health', async (_req, res) => {
    const ok = await db.ping();
    res.status(ok ? 200 : 503).json({ status: ok && broker.connected ? 'ok' : 'degraded', timestamp: new Date().toISOString() });
  });
  app.get('/ready', readiness.handler(() => db.ping(), () => broker.connected));
  const metricsServer = await serveMetrics(app, config, logger);
  registerRuntimeMetrics({ orm: db.orm });
  // Our gateway's principal header is checked before the body is read: only its requests, whose client operation
  // already passed the gateway's limits, get 50 MB (entity batches can be large) and skip the GraphQL limits. Anyone
  // else (a third-party gateway forwarding credentials, a direct caller) gets the gateway's own limits (D13), before
  // authentication so that an anonymous document is bounded before `anonymousAllowed` parses it.
  const onAuthFailure = limiter.onAuthFailure(sendGraphQLError);
  const vouched = async (req: Request, res: Response, next: NextFunction) => {
    try {
      res.locals.caller = await gatewayCaller(req, vouch);
    } catch (err) {
      return onAuthFailure(res, err);
    }
    next();
  };
  const gatewayBody = express.json({ limit: '50mb' });
  const clientBody = express.json({ limit: JSON_LIMIT_BYTES, verify: (_req, _res, buf) => assertJsonDepth(buf.toString('utf8')) });
  const body = (req: Request, res: Response, next: NextFunction) => (res.locals.caller ? gatewayBody : clientBody)(req, res, next);
  const bodyError = (err: unknown, _req: Request, res: Response, _next: NextFunction) => sendGraphQLError(res, jsonBodyError(err));
  const armorRules = armorProtection().validationRules;
  const limits = (req: Request, res: Response, next: NextFunction) => {
    if (res.locals.caller) return next();
    try {
      // Apollo also runs GET requests, from the query string.
      assertGraphQLLimits(schema, req.method === 'GET' ? req.query : req.body, armorRules);
    } catch (err) {
      return sendGraphQLError(res, err);
    }
    next();
  };
  app.use('/graphql', vouched, body, bodyError, limits, callers(true, sendGraphQLError), expressMiddleware(apollo, { context: async ({ req, res }) => contextOf(req, res) }));
  // The module's plain HTTP routes (uploads, CDN), authenticated like GraphQL (the handlers check the caller's rights).
  for (const route of module.http?.(deps) ?? []) {
    const withContext = (req: Request, res: Response, next: NextFunction) => ((res.locals.context = contextOf(req, res)), next());
    app[route.method](route.path, ...(route.family ? [callers(false, sendError), withContext] : []), route.handler);
  }
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => sendError(res, err));

  const server = createServer(drain.listener(retryAfterOn503(app)));
  drain.attach(server);
  // The content service's `subscription { events }` over graphql-ws at /graphql (subscriptions.ts).
  const subscriptions = await serveSubscriptions({ server, schema, orm: db.orm, broker, auth, limiter, projects, vouch, logger });
  const port = config.subgraphPort ?? DEFAULT_SUBGRAPH_PORTS[module.name];
  await new Promise<void>((resolve) => server.listen(port, config.http.host, resolve));
  const url = `http://${config.http.host}:${(server.address() as AddressInfo).port}/graphql`;
  readiness.ready();
  logger.info({ url }, `subgraph ${module.name} listening`);
  return {
    url,
    retire: () => drain.retire(),
    async stop(timeoutMs = config.shutdown.timeoutMs) {
      const deadline = drainDeadline(Date.now(), timeoutMs);
      const drained = drain.drain(server, deadline);
      await subscriptions?.close(deadline);
      if (!(await drained)) logger.warn('requests still running at the shutdown deadline were cut');
      await apollo.stop();
      await workers.stop();
      await dispatcher.flush().catch((err) => logger.warn({ err }, 'last event dispatch failed; the next dispatcher numbers them'));
      await dispatcher.stop();
      await broker.close();
      await limiter.close();
      await db.close();
      metricsServer?.close();
    },
  };
}

/**
 * Entry point helper for `subgraphs/<name>/src/main.ts`, which starts `tracing` (`@cp/tracing`) before requiring this
 * package; its last spans are exported after the service stopped.
 */
export function main(module: SubgraphModule, options: ServiceOptions & { tracing?: Tracing }): void {
  runSubgraphService(module, options).then(
    ({ retire, stop }) => {
      const config = loadConfig();
      const close = async (timeoutMs: number) => {
        await stop(timeoutMs);
        await options.tracing?.shutdown();
      };
      exitGracefullyOnSignals({ retire, close }, { ...config.shutdown, logger: createLogger(config, `subgraph-${module.name}`) });
    },
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
