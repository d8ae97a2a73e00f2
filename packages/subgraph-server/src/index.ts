// Runs one subgraph module as its own HTTP service behind our gateway (`SUBGRAPH_URLS`) or any federation gateway.
import 'reflect-metadata';
import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { createAuthentication } from '@cp/auth';
import { createLogger, DEFAULT_SUBGRAPH_PORTS, loadSubgraphSecret, type Config, type Logger } from '@cp/config';
import { sqlProjectDirectory } from '@cp/db';
import {
  lingerAfterEarlyAnswers,
  exitGracefullyOnSignals,
  familyOnly,
  graphqlBody,
  idempotency,
  sentRequestId,
  startIdempotencyCleanup,
  underGatewayClaim,
  urlGuard,
  writeError,
} from '@cp/edge';
import {
  AppError,
  BadRequestError,
  formatGraphQLError,
  graphQLResultStatus,
  isInternal,
  negotiateLanguage,
} from '@cp/errors';
import {
  armorProtection,
  assertGraphQLLimits,
  JSON_LIMIT_BYTES,
  jsonBodyError,
  PRINCIPAL_HEADER,
  type Context,
} from '@cp/graphql';
import type { Tracing } from '@cp/tracing';
import type { NextFunction, Request, Response } from 'express';
import { randomUUID } from 'node:crypto';
import { mountHttpRoutes, packageVersion, startHost, type HostedService, type HostParts } from '@cp/host';
import type { SubgraphModule } from '@cp/host';
import { apolloHandler } from './apollo-handler';
import { callerMiddleware, gatewayCaller, type Caller } from './caller';
import { serveSubscriptions } from './subscriptions';

export * from './apollo-handler';
export * from './caller';
export * from './events';

export interface ServiceOptions {
  /** Parsed once by the entry point (`main.ts`), which also started tracing with it. */
  config: Config;
}

/** Starts the module on `SUBGRAPH_PORT` (or its default port) with its HTTP routes and workers; returns its URL. */
export interface RunningSubgraphService {
  url: string;
  /** Shutdown's grace window: `/ready` 503 and `Connection: close`, still serving (see `exitGracefullyOnSignals`). */
  retire(): void;
  /** Graceful: stop accepting, finish in-flight requests, stop Apollo, then the workers and the database. */
  stop(timeoutMs?: number): Promise<void>;
}

export async function runSubgraphService(
  module: SubgraphModule,
  { config }: ServiceOptions,
): Promise<RunningSubgraphService> {
  const logger = createLogger(config, `subgraph-${module.name}`);
  const vouch = { secret: loadSubgraphSecret(config, 'to run a subgraph service'), subgraph: module.name };
  const answers = errorAnswers(logger);
  const host = await startHost({
    config,
    logger,
    modules: [module],
    // Our gateway's signed principal, or the client's own credentials checked with the same rules as at our gateway
    // (`@cp/auth`); sign-in failures (the access service) count in the host's shared rate-limit store.
    auth: ({ limiter, secret }) =>
      createAuthentication(config, secret, { signInLimiter: limiter.signInLimiter, vouch }),
    http: {
      port: config.subgraphPort ?? DEFAULT_SUBGRAPH_PORTS[module.name],
      version: packageVersion(__dirname),
      // The gateway's URL checks (`@cp/edge`'s urlGuard: bad percent-encoding, NUL and control characters, `.`/`..`
      // segments, odd query strings), before any route and /health alike, refused with the same 400 envelope.
      front: [urlGuard(answers.sendError)],
      serve: (parts) => serveSubgraph(module, parts, answers),
    },
  });
  const url = `${host.url}/graphql`;
  logger.info({ url }, `subgraph ${module.name} listening`);
  return { url, retire: host.retire, stop: host.close };
}

/** A service's error answers outside GraphQL execution: plain envelopes, and GraphQL `errors[]` on /graphql. */
interface ErrorAnswers {
  sendError(res: Response, err: unknown): void;
  sendGraphQLError(res: Response, err: unknown): void;
}

/**
 * The gateway's writer (`@cp/edge`): answered failures logged (INTERNAL in full, outages throttled), `Retry-After` on
 * 429, and early refusals answered after the unread body is discarded rather than as a reset connection. The request
 * id an envelope and the log name is the caller's `X-Request-ID` (our gateway sends its own); answers are in English.
 */
function errorAnswers(logger: Logger): ErrorAnswers {
  const answer = (graphql: boolean) => (res: Response, err: unknown) =>
    writeError(res, err, {
      graphql,
      logger,
      edge: { requestId: sentRequestId(res.req) ?? 'subgraph', lang: 'en', variablesFrom: 'body' },
    });
  return { sendError: answer(false), sendGraphQLError: answer(true) };
}

/**
 * A caller other than our gateway (a client, Apollo Router, Hive Gateway) gets the HTTP status our gateway would
 * answer: 503 for UNAVAILABLE, 401, 429 …, when no data came back, as its refusals before execution already do. Our
 * gateway's own calls (a verified principal header) keep 200, so that @apollo/gateway reads the codes from the body.
 */
const statusForClients: ApolloServerPlugin<Context> = {
  async requestDidStart({ request }) {
    if (request.http?.headers.get(PRINCIPAL_HEADER)) return {};
    return {
      async willSendResponse({ response }) {
        if (response.body.kind !== 'single') return;
        const status = graphQLResultStatus(response.body.singleResult.data, response.body.singleResult.errors);
        if (status !== undefined) response.http.status = status;
      },
    };
  },
};

/** The module's schema on Apollo at /graphql, and its HTTP routes, for our gateway and any other caller. */
async function serveSubgraph(
  module: SubgraphModule,
  { db, broker, limiter, deps, app, server }: HostParts,
  { sendError, sendGraphQLError }: ErrorAnswers,
): Promise<HostedService> {
  const { logger, auth } = deps;
  // A client still sending a body it was refused gets the answer, with `Expect: 100-continue` or without (as at the
  // gateway), in the shutdown grace window too.
  lingerAfterEarlyAnswers(server);
  const projects = sqlProjectDirectory(db.orm);
  const { schema } = await module.build(deps);
  const apollo = new ApolloServer<Context>({
    schema,
    includeStacktraceInErrorResponses: false,
    // Stopped by our shutdown after the HTTP drain, not by Apollo's own SIGTERM handler (operations in flight would fail).
    stopOnTerminationSignals: false,
    plugins: [statusForClients],
    formatError(formatted, error) {
      // Codes and details pass through to the gateway; HTTP status stays 200 (stack-facts pitfall 1).
      const result = formatGraphQLError(formatted, error, { requestId: 'subgraph', lang: 'en', variablesFrom: 'body' });
      if (isInternal(result)) logger.error({ err: error }, 'unexpected error');
      return result;
    },
  });
  await apollo.start();

  const callers = (graphql: boolean, onError: (res: Response, err: unknown) => void) =>
    callerMiddleware({ fork: () => db.orm.em.fork(), auth, limiter, onError, graphql });
  const contextOf = (req: Request, res: Response): Context => ({
    em: res.locals.em,
    principal: (res.locals.caller as Caller).principal,
    requestId: req.header('x-request-id') ?? randomUUID(),
    lang: negotiateLanguage(req.header('accept-language')),
    projects,
  });

  // Our gateway's principal header is checked before the body is read: only its requests, whose client operation
  // already passed the gateway's limits, get 50 MB (entity batches can be large) and skip the GraphQL limits. Anyone
  // else (a third-party gateway forwarding credentials, a direct caller) gets the gateway's own limits, before
  // authentication so that an anonymous document is bounded before `anonymousAllowed` parses it.
  const onAuthFailure = limiter.onAuthFailure(sendGraphQLError);
  const vouched = async (req: Request, res: Response, next: NextFunction) => {
    try {
      res.locals.caller = await gatewayCaller(req, res, db.orm.em, auth);
    } catch (err) {
      return onAuthFailure(res, err);
    }
    next();
  };
  // The gateway's fetches carry whole entities (up to 50 MB); anyone else's the client limit.
  const gatewayBody = graphqlBody(50 * 1024 * 1024);
  const clientBody = graphqlBody(JSON_LIMIT_BYTES);
  const body = (req: Request, res: Response, next: NextFunction) =>
    (res.locals.caller ? gatewayBody : clientBody)(req, res, next);
  const bodyError = (err: unknown, _req: Request, res: Response, _next: NextFunction) =>
    sendGraphQLError(res, jsonBodyError(err));
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
  const withContext = (req: Request, res: Response, next: NextFunction) => (
    (res.locals.context = contextOf(req, res)),
    next()
  );
  // Idempotency-Key on HTTP routes and GraphQL mutations as at the gateway: the same middleware (`@cp/edge`), keys
  // per caller (`user:<id>`) in the same `idempotency_key` table. A call our gateway vouched for (`x-cp-principal`)
  // skips it: the gateway's own middleware ran in front of it and answers the retry, and recording it here too would
  // find the gateway's running claim on the same caller and key (409). Its writes still mark the gateway's claim
  // `committed` in their transactions (`underGatewayClaim`): the gateway may die before it keeps the answer.
  const unlessVouched =
    (idempotent: ReturnType<typeof idempotency>) => (req: Request, res: Response, next: NextFunction) => {
      const caller = res.locals.caller as Caller;
      if (caller.via !== 'gateway') return idempotent(req, res, next);
      if (caller.idempotencyKey === undefined) return next();
      underGatewayClaim(db.orm, res.locals.context as Context, caller.idempotencyKey, next);
    };
  // Mutations from anyone else (a federation gateway forwarding the client's credentials and key, a direct caller).
  // Their keys live in a key space of this service (`scope`): a gateway fans one client mutation out to several
  // subgraphs with the same key, each service keeping its own part (docs/operating/federation-gateways.md).
  const idempotentMutations = unlessVouched(
    idempotency({
      orm: db.orm,
      logger,
      body: 'parsed',
      graphql: true,
      scope: `${module.name}/graphql`,
      onError: sendGraphQLError,
    }),
  );
  app.use(
    '/graphql',
    vouched,
    body,
    bodyError,
    limits,
    callers(true, sendGraphQLError),
    withContext,
    idempotentMutations,
    // The context the idempotency middleware saw: the grants resolvers record in it are stored with the answer.
    apolloHandler(apollo),
  );
  // Admin uploads: keys in the caller's own key space, as at the gateway, so a retry answers alike at every address.
  const idempotentUnlessVouched = unlessVouched(idempotency({ orm: db.orm, logger, body: 'none', onError: sendError }));
  // Every service records GraphQL mutations, so every service sweeps expired keys (the delete is idempotent).
  const idempotencyCleanup = startIdempotencyCleanup(db.orm, logger);
  // The module's HTTP routes (uploads, CDN), credential ones authenticated like GraphQL and held to their API family's
  // principal kind as at the gateway (an API key on `/app/v1` is 401); the handlers check the caller's rights.
  mountHttpRoutes(app, module.httpRoutes ?? [], deps, (family) => [
    callers(false, sendError),
    withContext,
    familyOnly(family, sendError),
    ...(family === 'app' ? [idempotentUnlessVouched] : []),
  ]);
  // Any other path: the error envelope, as at the gateway (not Express's HTML page).
  app.use((req: Request, res: Response) =>
    sendError(res, new AppError('NOT_FOUND', `No route ${req.method} ${req.path}.`)),
  );
  // Express refuses a path parameter it can't percent-decode with a URIError: the client's 400, as at the gateway.
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) =>
    sendError(res, err instanceof URIError ? new BadRequestError('The URL holds invalid percent-encoding.') : err),
  );
  // The content service's `subscription { events }` over graphql-ws at /graphql (subscriptions.ts).
  const subscriptions = await serveSubscriptions({
    server,
    schema,
    orm: db.orm,
    broker,
    auth,
    limiter,
    projects,
    logger,
  });
  return {
    drain: async (deadline) => subscriptions?.close(deadline),
    stop: async () => {
      idempotencyCleanup.stop();
      await apollo.stop();
    },
  };
}

/**
 * Entry point helper for `subgraphs/<name>/src/main.ts`, which starts `tracing` (`@cp/tracing`) before requiring this
 * package; its last spans are exported after the service stopped.
 */
export function main(module: SubgraphModule, options: ServiceOptions & { tracing?: Tracing }): void {
  const starting = runSubgraphService(module, options);
  // Signals are handled from before the service says it listens: a SIGTERM right after (or during start) is graceful.
  const logger = createLogger(options.config, `subgraph-${module.name}`);
  exitGracefullyOnSignals(
    starting.then((service) => ({ retire: () => service.retire(), close: (timeoutMs) => service.stop(timeoutMs) })),
    { ...options.config.shutdown, logger, afterClose: async () => options.tracing?.shutdown() },
  );
  starting.catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
