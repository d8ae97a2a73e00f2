// GraphQL subscriptions over graphql-ws (graphql-transport-ws) at /graphql: `events(projectId, …)` from the event feed.
// Our gateway serves them to clients (it can't proxy them); a standalone content service serves them to any
// federation gateway that opens subscriptions to subgraphs over WebSocket (Hive Gateway, Apollo Router, Cosmo).
import type { ApolloServer } from '@apollo/server';
import { eventFilterFor, EventRecord, type EventFeed, type EventScope } from '@cp/db';
import type { RateLimiter } from '@cp/edge';
import { clientCredentials, connectionCredentials, type AccessWatch, type WatchedCaller } from '@cp/auth';
import {
  ANONYMOUS,
  armorProtection,
  assertListCost,
  parseWithinLimits,
  type Authenticator,
  type Context,
  type Principal,
  type ProjectDirectory,
} from '@cp/graphql';
import { MapperKind, mapSchema } from '@graphql-tools/utils';
import type { MikroORM } from '@mikro-orm/postgresql';
import { createSourceEventStream, execute, getOperationAST, GraphQLError, print, specifiedRules } from 'graphql';
import type {
  DocumentNode,
  ExecutionArgs,
  ExecutionResult,
  FormattedExecutionResult,
  GraphQLSchema,
  OperationDefinitionNode,
} from 'graphql';
import { formatGraphQLError, isErrorCode, unavailableErrorOf } from '@cp/errors';
import { useServer } from 'graphql-ws/use/ws';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';
import { EventFanOut, EventStream, type FanOutTarget } from './fan-out';

interface SubscriptionContext {
  principal: Principal;
  projects: ProjectDirectory;
  /** What the connection's subscriptions were allowed to read: re-checked on access changes. */
  scopes?: Set<EventScope>;
  /** Where the fan-out writes this subscription's frames. */
  target?: FanOutTarget;
}

/** Frames above this close the socket (1009) before they are buffered further: subscriptions are small. */
export const MAX_FRAME_BYTES = 64 * 1024;
/** A socket that has not sent `connection_init` by then is closed (4408). */
export const CONNECTION_INIT_TIMEOUT_MS = 3_000;
/** Parsed and validated documents kept by query text: a thousand subscribers of one query share one document. */
const CACHED_DOCUMENTS = 500;

/** An answer's errors with an error code each: those without one are formatted as the HTTP edge formats them. */
function withCodes(result: ExecutionResult): FormattedExecutionResult {
  const edge = { requestId: randomUUID(), lang: 'en', variablesFrom: 'body' as const };
  const errors = result.errors!.map((error) =>
    isErrorCode(error.extensions?.code) ? error.toJSON() : formatGraphQLError(error.toJSON(), error, edge),
  );
  return { ...(result as FormattedExecutionResult), errors };
}

/** graphql-js's validation errors carry no code; over HTTP, Apollo's GRAPHQL_VALIDATION_FAILED is our BAD_REQUEST. */
function asBadRequest(error: GraphQLError): GraphQLError {
  if (isErrorCode(error.extensions.code)) return error;
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    extensions: { ...error.extensions, code: 'BAD_REQUEST' },
  });
}

/**
 * `schema` (our gateway's API schema, or the content subgraph's own) with `Subscription.events` wired to the
 * event feed: clients use one schema, and the types graphql-ws executes against are that schema's own.
 */
export function buildSubscriptionSchema(schema: GraphQLSchema, feed: EventFeed): GraphQLSchema {
  return mapSchema(schema, {
    [MapperKind.SUBSCRIPTION_ROOT_FIELD]: (field, fieldName) => {
      if (fieldName !== 'events') return field;
      return {
        ...field,
        subscribe: async (_root: unknown, args: Record<string, unknown>, ctx: SubscriptionContext) => {
          const { projectId, resourceType, resourceId } = args as EventScope;
          const scope: EventScope = { projectId, resourceType, resourceId };
          const filter = await eventFilterFor(ctx, scope);
          ctx.scopes?.add(scope);
          return new EventStream(feed, filter);
        },
        resolve: (event: EventRecord) => event,
      };
    },
  });
}

export interface SubscriptionServerDeps {
  /** Connections and subscriptions spend the same budget as HTTP requests. */
  limiter: Pick<RateLimiter, 'allow'>;
  server: Server;
  schema: GraphQLSchema;
  orm: MikroORM;
  /** `@cp/auth`: a standalone subgraph service's also takes our gateway's signed principal, as over HTTP. */
  auth: Authenticator;
  projects: ProjectDirectory;
  access: AccessWatch;
  /** Queries and mutations sent over the socket run through our gateway, as over HTTP; without it they are refused. */
  apollo?: ApolloServer<Context>;
}

/** A socket's caller; `vouched`: our gateway authenticated it and spent its budget (as over HTTP). */
interface SocketCaller extends Pick<WatchedCaller, 'principal' | 'credentials'> {
  vouched: boolean;
  peer?: string;
  scopes: Set<EventScope>;
}

/**
 * Credentials travel in `connectionParams` (`x-api-key`, or `authorization: Bearer …`), or, when those carry
 * none, in the upgrade request's headers (as gateways propagate them). None closes with 4401, bad or revoked ones
 * with 4403, an exhausted budget with 4429 (or a RATE_LIMITED error for one more subscription).
 */
export function startSubscriptionServer(deps: SubscriptionServerDeps) {
  const { server, schema, orm, auth, projects, limiter, access, apollo } = deps;
  // The schema's Query and Mutation fields have no resolvers here: those operations take the gateway's query plan.
  const viaGateway = async (args: ExecutionArgs): Promise<ExecutionResult> => {
    const { principal } = args.contextValue as SubscriptionContext;
    const context: Context = { em: orm.em.fork(), principal, requestId: randomUUID(), lang: 'en', projects };
    const response = await apollo!.executeOperation(
      {
        query: print(args.document),
        variables: (args.variableValues ?? undefined) as Record<string, unknown> | undefined,
        operationName: args.operationName ?? undefined,
      },
      { contextValue: context },
    );
    if (response.body.kind !== 'single') {
      return { errors: [new GraphQLError('Incremental delivery is not supported over graphql-ws.')] };
    }
    const result = response.body.singleResult;
    if (!result.errors) return result as ExecutionResult;
    // Apollo's errors are already formatted plain objects; graphql-ws calls `toJSON()` on each and, without one, closed
    // the whole socket (4500) on the first failing query or mutation.
    const errors = result.errors.map((e) => new GraphQLError(e.message, { path: e.path, extensions: e.extensions }));
    return { ...result, errors } as ExecutionResult;
  };
  // Frames are capped before authentication can even start: 8 sockets of 100 MiB frames cannot fill memory.
  const wss = new WebSocketServer({ server, path: '/graphql', maxPayload: MAX_FRAME_BYTES });
  const callers = new WeakMap<object, SocketCaller>();
  const fanOut = new EventFanOut();
  const documents = new Map<string, { document: DocumentNode; errors: readonly GraphQLError[] }>();
  const rules = [...specifiedRules, ...armorProtection().validationRules];
  // The limits Apollo applies over HTTP (characters, tokens, depth, cost, aliases, directives), so that a socket is
  // no way around them.
  const parsed = (query: string) => {
    let entry = documents.get(query);
    if (!entry) {
      entry = parseWithinLimits(schema, query, rules);
      if (documents.size >= CACHED_DOCUMENTS) documents.delete(documents.keys().next().value!);
      documents.set(query, entry);
    }
    return entry;
  };
  const cleanup = useServer<Record<string, unknown> | undefined, { socket: WebSocket; request: IncomingMessage }>(
    {
      schema,
      connectionInitWaitTimeout: CONNECTION_INIT_TIMEOUT_MS,
      execute: (args: ExecutionArgs) =>
        apollo && getOperationAST(args.document, args.operationName)?.operation !== 'subscription'
          ? viaGateway(args)
          : execute(args),
      subscribe: (args: ExecutionArgs) =>
        fanOut.subscribe(args, (args.contextValue as SubscriptionContext).target, createSourceEventStream),
      async onConnect(ctx) {
        const peer = ctx.extra.request.socket.remoteAddress;
        let caller: SocketCaller;
        try {
          const given = connectionCredentials(ctx.connectionParams, ctx.extra.request.headers);
          const { principal, via } = await auth.authenticate(orm.em.fork(), given);
          const credentials = via === 'credentials' ? clientCredentials(given) : undefined;
          caller = { principal, credentials, vouched: via === 'gateway', peer, scopes: new Set() };
        } catch (err) {
          // The database is down: not the caller's fault, and it may retry (1013 Try Again Later), where 4403 would
          // tell it its credentials were refused.
          if (unavailableErrorOf(err)) {
            ctx.extra.socket.close(1013, 'Service unavailable');
            return false;
          }
          // Guessing credentials spends the anonymous budget, as over HTTP.
          await limiter.allow(ANONYMOUS, peer);
          return false;
        }
        if (caller.principal.kind === 'anonymous') {
          ctx.extra.socket.close(4401, 'Unauthorized');
          return false;
        }
        if (!caller.vouched && !(await limiter.allow(caller.principal, peer))) {
          ctx.extra.socket.close(4429, 'Too many requests');
          return false;
        }
        callers.set(ctx.extra, caller);
        // A revoked key, a removed or demoted user: the connection closes with 4403 on every replica.
        const socket = ctx.extra.socket;
        const stopWatching = access.watch({
          principal: caller.principal,
          credentials: caller.credentials,
          authorize: async (fresh) => {
            for (const scope of caller.scopes) await eventFilterFor(fresh, scope);
          },
          revoke: () => socket.close(4403, 'Forbidden'),
        });
        socket.once('close', stopWatching);
        return true;
      },
      // Errors a subscription's start raises (its `subscribe` resolver: authorization, the database) leave with their
      // code and no internals, as over HTTP; answers that already carry a code (the gateway's) are left as they are.
      onNext: (_ctx, _id, _payload, _args, result) => (result.errors ? withCodes(result) : undefined),
      async onSubscribe(ctx, _id, payload) {
        const caller = callers.get(ctx.extra);
        if (caller && !caller.vouched && !(await limiter.allow(caller.principal, caller.peer))) {
          return [new GraphQLError('Too many requests.', { extensions: { code: 'RATE_LIMITED' } })];
        }
        let entry: ReturnType<typeof parsed> | undefined;
        try {
          entry = parsed(payload.query);
        } catch (err) {
          if (err instanceof GraphQLError && err.extensions.code === 'BAD_REQUEST') return [err];
          // Other unparsable documents are left to graphql-ws's own parsing and its error.
          return undefined;
        }
        if (entry.errors.length) return entry.errors.map(asBadRequest);
        const operation = getOperationAST(entry.document, payload.operationName) ?? undefined;
        try {
          if (operation) assertListCost(schema, entry.document, operation, payload.variables ?? undefined);
        } catch (err) {
          if (err instanceof GraphQLError) return [err];
          throw err;
        }
        if (!apollo && operation && operation.operation !== 'subscription') {
          const message = 'Only subscriptions are served over WebSocket here; send queries and mutations over HTTP.';
          return [new GraphQLError(message, { extensions: { code: 'BAD_REQUEST' } })];
        }
        // graphql-js 16 lets `@skip`/`@include` onto a subscription's root field (17 refuses it) and then fails inside
        // `subscribe`, closing the socket.
        const conditional = (s: OperationDefinitionNode['selectionSet']['selections'][number]) =>
          s.directives?.some((d) => d.name.value === 'skip' || d.name.value === 'include');
        if (operation?.operation === 'subscription' && operation.selectionSet.selections.some(conditional)) {
          const message = 'A subscription root field cannot carry @skip or @include.';
          return [new GraphQLError(message, { extensions: { code: 'BAD_REQUEST' } })];
        }
        const { operationName, variables } = payload;
        return { schema, document: entry.document, operationName, variableValues: variables };
      },
      context: (ctx, id): SubscriptionContext => {
        const caller = callers.get(ctx.extra);
        const target = { socket: ctx.extra.socket, id };
        return { principal: caller?.principal ?? ANONYMOUS, projects, scopes: caller?.scopes, target };
      },
    },
    wss,
  );
  return {
    /** Open subscription connections (metrics). */
    get connections() {
      return wss.clients.size;
    },
    /** Live `events` subscriptions (metrics; benchmarks wait for it). */
    get subscriptions() {
      return fanOut.subscriptions;
    },
    /** Closes every socket with 1001 (Going Away); sockets that don't finish the handshake by `deadline` are cut. */
    async close(deadline = Date.now() + 5000) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, deadline - Date.now()))));
      await Promise.race([cleanup.dispose(), late]);
      clearTimeout(timer);
      for (const socket of wss.clients) socket.terminate();
    },
  };
}
