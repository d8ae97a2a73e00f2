// GraphQL subscriptions over graphql-ws at /graphql (the gateway can't proxy them, D13): `events(projectId, …)`.
import { eventFilterFor, EventRecord, type EventFeed } from '@cp/db';
import { ANONYMOUS, type Principal, type ProjectDirectory } from '@cp/graphql';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { AuthService } from '@cp/subgraph-access';
import type { GraphQLSchema } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import type { Server } from 'node:http';
import { Arg, buildSchema, ID, Query, Resolver, Root, Subscription } from 'type-graphql';
import { WebSocketServer } from 'ws';
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
  server: Server;
  schema: GraphQLSchema;
  orm: MikroORM;
  auth: AuthService;
  projects: ProjectDirectory;
}

/**
 * Credentials travel in `connectionParams` (`x-api-key`, or `authorization: Bearer …`, D9): none closes with 4401,
 * bad or revoked ones with 4403.
 */
export function startSubscriptionServer({ server, schema, orm, auth, projects }: SubscriptionServerDeps) {
  const wss = new WebSocketServer({ server, path: '/graphql' });
  const principals = new WeakMap<object, Principal>();
  const cleanup = useServer<Record<string, unknown> | undefined, { socket: import('ws').WebSocket }>(
    {
      schema,
      async onConnect(ctx) {
        const params = ctx.connectionParams ?? {};
        const header = (name: string) => (typeof params[name] === 'string' ? (params[name] as string) : undefined);
        let principal: Principal = ANONYMOUS;
        try {
          principal = await auth.authenticate(orm.em.fork(), { authorization: header('authorization'), apiKey: header('x-api-key') });
        } catch {
          return false;
        }
        if (principal.kind === 'anonymous') {
          ctx.extra.socket.close(4401, 'Unauthorized');
          return false;
        }
        principals.set(ctx.extra, principal);
        return true;
      },
      context: (ctx): SubscriptionContext => ({ principal: principals.get(ctx.extra) ?? ANONYMOUS, projects }),
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
