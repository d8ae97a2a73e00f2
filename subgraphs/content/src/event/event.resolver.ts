// GraphQL surface of the event log: the same filters and visibility as the event routes.
import { eventFilterFor, EventRecord, listEvents } from '@cp/db';
import { BadRequestError } from '@cp/errors';
import { CursorArgs, CursorList, eventSince, ProjectScopeArgs, type Context } from '@cp/graphql';
import { Arg, Args, ArgsType, Ctx, Field, ID, Query, Resolver, Root, Subscription } from 'type-graphql';

const EventList = CursorList(EventRecord, 'EventList');

@ArgsType()
class EventFilterArgs extends CursorArgs {
  @Field({
    nullable: true,
    description: 'Only events about this resource type (`content`, `content-types`, `components`, …).',
  })
  resourceType?: string;

  @Field(() => ID, { nullable: true, description: 'Only events about this resource.' })
  resourceId?: string;

  @Field({ nullable: true, description: 'Only events of this type, e.g. `content.published`.' })
  type?: string;

  @Field({ nullable: true, description: 'Only events at or after this instant (ISO 8601).' })
  since?: string;
}

@Resolver(() => EventRecord)
export class EventResolver {
  @Query(() => EventList, {
    description: 'Events of a project, oldest first (cursor pagination); API keys see published-state events only.',
  })
  async events(@Args() scope: ProjectScopeArgs, @Args() args: EventFilterArgs, @Ctx() ctx: Context) {
    const since = eventSince(args.since);
    const filter = await eventFilterFor(ctx, {
      ...scope,
      resourceType: args.resourceType,
      resourceId: args.resourceId,
      type: args.type,
      since,
    });
    return listEvents(ctx.em, filter, args);
  }

  /**
   * Served over graphql-ws only (packages/subgraph-server/src/events/subscription-server.ts): by our gateway against
   * its API schema, and by the standalone content service against this schema, for gateways that open
   * subscriptions to subgraphs. Over HTTP it is refused.
   */
  @Subscription(() => EventRecord, {
    name: 'events',
    description:
      'Changes in a project as they commit, over graphql-ws at /graphql; API keys receive published-state events only.',
    subscribe: () => {
      throw new BadRequestError('Subscriptions are served over graphql-ws (WebSocket) at /graphql.');
    },
  })
  liveEvents(
    @Root() event: EventRecord,
    @Arg('projectId', () => ID, { description: 'The project.' }) _projectId: string,
    @Arg('resourceType', () => String, { nullable: true, description: 'Only events about this resource type.' })
    _resourceType?: string,
    @Arg('resourceId', () => ID, { nullable: true, description: 'Only events about this resource.' })
    _resourceId?: string,
  ): EventRecord {
    return event;
  }
}
