// GraphQL subscriptions over graphql-ws at /graphql (the gateway can't proxy them, D13): `events(projectId, …)`.
import { eventFilterFor, EventRecord, type EventFeed } from '@cp/db';
import { ANONYMOUS, type Principal, type ProjectDirectory } from '@cp/graphql';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { AuthService } from '@cp/subgraph-access';
import { GraphQLError, type GraphQLSchema } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import type { IncomingMessage, Server } from 'node:http';
import { Arg, buildSchema, ID, Query, Resolver, Root, Subscription } from 'type-graphql';
import { WebSocketServer } from 'ws';
import type { RateLimiter } from '../rate-limit';
import { liveEvents } from './live-queue';

interface SubscriptionContext {
  principal: Principal;
  projects: ProjectDirectory;
}

/** A schema with the same `Event` type as the supergraph; queries and mutations stay on the gateway. */
export async function buildSubscriptionSchema(feed: EventFeed): Promise<GraphQLSchema> {
  @Resolver()
  class EventSubscriptionResolver {
    @Query(() => Boolean, { description: 'Always true: this endpoint serves subscriptions; send queries over HTTP.' })
    subscriptionsAvailable(): boolean {
      return true;
    }

    @Subscription(() => EventRecord, {
      description: 'Changes in a project as they commit; API keys receive published-state events only (D9).',
      subscribe: async ({ args, context }) => {
        const { projectId, resourceType, resourceId } = args as { projectId: string; resourceType?: string; resourceId?: string };
        return liveEvents(feed, await eventFilterFor(context as SubscriptionContext, { projectId, resourceType, resourceId }));
      },
    })
    events(
      @Root() event: EventRecord,
      @Arg('projectId', () => ID, { description: 'The project.' }) _projectId: string,
      @Arg('resourceType', () => String, { nullable: true, description: 'Only this resource type.' }) _resourceType?: string,
      @Arg('resourceId', () => ID, { nullable: true, description: 'Only this resource.' }) _resourceId?: string,
    ): EventRecord {
      return event;
    }
  }
  // type-graphql insists on a PubSub even when every subscription brings its own `subscribe`; ours comes from the feed.
  const unused = () => {
    throw new Error('Subscriptions read the event feed, not a PubSub.');
  };
  return buildSchema({ resolvers: [EventSubscriptionResolver], validate: false, pubSub: { publish: unused, subscribe: unused } });
}

export interface SubscriptionServerDeps {
  /** Connections and subscriptions spend the same budget as HTTP requests. */
  limiter: Pick<RateLimiter, 'allow'>;
  server: Server;
  schema: GraphQLSchema;
  orm: MikroORM;
  auth: AuthService;
  projects: ProjectDirectory;
}

/**
 * Credentials travel in `connectionParams` (`x-api-key`, or `authorization: Bearer …`, D9): none closes with 4401,
 * bad or revoked ones with 4403, an exhausted budget with 4429 (or a RATE_LIMITED error for one more subscription).
 */
export function startSubscriptionServer({ server, schema, orm, auth, projects, limiter }: SubscriptionServerDeps) {
  const wss = new WebSocketServer({ server, path: '/graphql' });
  const callers = new WeakMap<object, { principal: Principal; credential?: string; peer?: string }>();
  const cleanup = useServer<Record<string, unknown> | undefined, { socket: import('ws').WebSocket; request: IncomingMessage }>(
    {
      schema,
      async onConnect(ctx) {
        const params = ctx.connectionParams ?? {};
        const header = (name: string) => (typeof params[name] === 'string' ? (params[name] as string) : undefined);
        const peer = ctx.extra.request.socket.remoteAddress;
        let principal: Principal = ANONYMOUS;
        try {
          principal = await auth.authenticate(orm.em.fork(), { authorization: header('authorization'), apiKey: header('x-api-key') });
        } catch {
          // Guessing credentials spends the anonymous budget, as over HTTP.
          await limiter.allow(ANONYMOUS, undefined, peer);
          return false;
        }
        if (principal.kind === 'anonymous') {
          ctx.extra.socket.close(4401, 'Unauthorized');
          return false;
        }
        const caller = { principal, credential: header('authorization'), peer };
        if (!(await limiter.allow(principal, caller.credential, peer))) {
          ctx.extra.socket.close(4429, 'Too many requests');
          return false;
        }
        callers.set(ctx.extra, caller);
        return true;
      },
      async onSubscribe(ctx) {
        const caller = callers.get(ctx.extra);
        if (caller && !(await limiter.allow(caller.principal, caller.credential, caller.peer))) {
          return [new GraphQLError('Too many requests.', { extensions: { code: 'RATE_LIMITED' } })];
        }
        return undefined;
      },
      context: (ctx): SubscriptionContext => ({ principal: callers.get(ctx.extra)?.principal ?? ANONYMOUS, projects }),
    },
    wss,
  );
  return {
    async close() {
      await cleanup.dispose();
      wss.close();
    },
  };
}
