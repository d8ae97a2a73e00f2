// GraphQL subscriptions over graphql-ws at /graphql (the gateway can't proxy them, D13): `events(projectId, …)`.
import { eventFilterFor, EventRecord, type EventFeed, type EventScope } from '@cp/db';
import { BadRequestError } from '@cp/errors';
import { ANONYMOUS, type Context, type Principal, type ProjectDirectory } from '@cp/graphql';
import type { ApolloServer } from '@apollo/server';
import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { AuthService } from '@cp/subgraph-access';
import { execute, getOperationAST, GraphQLError, parse, print, type ExecutionArgs, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import type { IncomingMessage, Server } from 'node:http';
import { MapperKind, mapSchema } from '@graphql-tools/utils';
import { WebSocketServer } from 'ws';
import type { AccessWatch } from '../access-watch';
import type { RateLimiter } from '@cp/edge';
import { liveEvents } from './live-queue';

interface SubscriptionContext {
  principal: Principal;
  projects: ProjectDirectory;
  /** What the connection's subscriptions were allowed to read: re-checked on access changes (issue 11.5). */
  scopes?: Set<EventScope>;
}

/** Frames above this close the socket (1009) before they are buffered further: subscription messages are small (issue 11.4). */
export const MAX_FRAME_BYTES = 64 * 1024;
/** A socket that has not sent `connection_init` by then is closed (4408). */
export const CONNECTION_INIT_TIMEOUT_MS = 3_000;

/**
 * The gateway's API schema (the one introspection over HTTP shows, D13) with `Subscription.events` wired to the event
 * feed: clients use one schema, and the types graphql-ws executes against are the supergraph's own.
 */
export function buildSubscriptionSchema(apiSchema: GraphQLSchema, feed: EventFeed): GraphQLSchema {
  return mapSchema(apiSchema, {
    [MapperKind.SUBSCRIPTION_ROOT_FIELD]: (field, fieldName) => {
      if (fieldName !== 'events') return field;
      return {
        ...field,
        subscribe: async (_root: unknown, args: Record<string, unknown>, ctx: SubscriptionContext) => {
          const { projectId, resourceType, resourceId } = args as { projectId: string; resourceType?: string; resourceId?: string };
          const scope: EventScope = { projectId, resourceType, resourceId };
          const filter = await eventFilterFor(ctx, scope);
          ctx.scopes?.add(scope);
          return liveEvents(feed, filter);
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
  auth: AuthService;
  projects: ProjectDirectory;
  access: AccessWatch;
  /** Queries and mutations sent over the socket run through the gateway, like over HTTP. */
  apollo?: ApolloServer<Context>;
}

/**
 * Credentials travel in `connectionParams` (`x-api-key`, or `authorization: Bearer …`, D9): none closes with 4401,
 * bad or revoked ones with 4403, an exhausted budget with 4429 (or a RATE_LIMITED error for one more subscription).
 */
export function startSubscriptionServer({ server, schema, orm, auth, projects, limiter, access, apollo }: SubscriptionServerDeps) {
  // The schema's Query and Mutation fields have no resolvers here: those operations take the gateway's query plan.
  const viaGateway = async (args: ExecutionArgs): Promise<ExecutionResult> => {
    const caller = args.contextValue as SubscriptionContext;
    const context: Context = { em: orm.em.fork(), principal: caller.principal, requestId: randomUUID(), lang: 'en', projects };
    const response = await apollo!.executeOperation(
      { query: print(args.document), variables: (args.variableValues ?? undefined) as Record<string, unknown> | undefined, operationName: args.operationName ?? undefined },
      { contextValue: context },
    );
    if (response.body.kind !== 'single') return { errors: [new GraphQLError('Incremental delivery is not supported over graphql-ws.')] };
    const result = response.body.singleResult;
    if (!result.errors) return result as ExecutionResult;
    // Apollo's errors are already formatted plain objects; graphql-ws calls `toJSON()` on each and, without one, closed
    // the whole socket (4500) on the first failing query or mutation.
    return { ...result, errors: result.errors.map((e) => new GraphQLError(e.message, { path: e.path, extensions: e.extensions })) } as ExecutionResult;
  };
  // Frames are capped before authentication can even start: 8 sockets of 100 MiB frames no longer fill memory.
  const wss = new WebSocketServer({ server, path: '/graphql', maxPayload: MAX_FRAME_BYTES });
  const callers = new WeakMap<object, { principal: Principal; peer?: string; scopes: Set<EventScope> }>();
  const cleanup = useServer<Record<string, unknown> | undefined, { socket: import('ws').WebSocket; request: IncomingMessage }>(
    {
      schema,
      connectionInitWaitTimeout: CONNECTION_INIT_TIMEOUT_MS,
      execute: (args: ExecutionArgs) =>
        apollo && getOperationAST(args.document, args.operationName)?.operation !== 'subscription' ? viaGateway(args) : execute(args),
      async onConnect(ctx) {
        const params = ctx.connectionParams ?? {};
        const header = (name: string) => (typeof params[name] === 'string' ? (params[name] as string) : undefined);
        const peer = ctx.extra.request.socket.remoteAddress;
        let principal: Principal = ANONYMOUS;
        try {
          principal = await auth.authenticate(orm.em.fork(), { authorization: header('authorization'), apiKey: header('x-api-key') });
        } catch {
          // Guessing credentials spends the anonymous budget, as over HTTP.
          await limiter.allow(ANONYMOUS, peer);
          return false;
        }
        if (principal.kind === 'anonymous') {
          ctx.extra.socket.close(4401, 'Unauthorized');
          return false;
        }
        const caller = { principal, peer, scopes: new Set<EventScope>() };
        if (!(await limiter.allow(principal, peer))) {
          ctx.extra.socket.close(4429, 'Too many requests');
          return false;
        }
        callers.set(ctx.extra, caller);
        // A revoked key, a removed or demoted user: the connection closes with 4403 on every replica (issue 11.5).
        const socket = ctx.extra.socket;
        const stopWatching = access.watch({
          principal,
          headers: { authorization: header('authorization'), apiKey: header('x-api-key') },
          authorize: async (fresh) => {
            for (const scope of caller.scopes) await eventFilterFor(fresh, scope);
          },
          revoke: () => socket.close(4403, 'Forbidden'),
        });
        socket.once('close', stopWatching);
        return true;
      },
      async onSubscribe(ctx, _id, payload) {
        const caller = callers.get(ctx.extra);
        if (caller && !(await limiter.allow(caller.principal, caller.peer))) {
          return [new GraphQLError('Too many requests.', { extensions: { code: 'RATE_LIMITED' } })];
        }
        if (conditionalSubscriptionRoot(payload.query, payload.operationName)) {
          return [new GraphQLError('A subscription root field cannot carry @skip or @include.', { extensions: { code: 'BAD_REQUEST' } })];
        }
        return undefined;
      },
      context: (ctx): SubscriptionContext => ({ principal: callers.get(ctx.extra)?.principal ?? ANONYMOUS, projects, scopes: callers.get(ctx.extra)?.scopes }),
    },
    wss,
  );
  return {
    /** Open subscription connections (metrics). */
    get connections() {
      return wss.clients.size;
    },
    /** Closes every socket with 1001 (Going Away); sockets that don't finish the close handshake by `deadline` are cut. */
    async close(deadline = Date.now() + 5000) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, deadline - Date.now()))));
      await Promise.race([cleanup.dispose(), late]);
      clearTimeout(timer);
      for (const socket of wss.clients) socket.terminate();
    },
  };
}

/**
 * graphql-js 16 lets `@skip`/`@include` onto a subscription's root field (17 refuses it) and then fails inside
 * `subscribe`, closing the socket. Unparsable documents are left to graphql-ws's own validation.
 */
function conditionalSubscriptionRoot(query: string, operationName?: string | null): boolean {
  let operation;
  try {
    operation = getOperationAST(parse(query), operationName ?? undefined);
  } catch {
    return false;
  }
  if (operation?.operation !== 'subscription') return false;
  return operation.selectionSet.selections.some((s) => s.directives?.some((d) => d.name.value === 'skip' || d.name.value === 'include'));
}
