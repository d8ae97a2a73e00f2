// GraphQL surface of the event log (D9, D13): the same filters and visibility as the event routes.
import { eventFilterFor, EventRecord, listEvents } from '@cp/db';
import { BadRequestError } from '@cp/errors';
import { CursorArgs, CursorList, ProjectScopeArgs, type Context } from '@cp/graphql';
import { Args, ArgsType, Ctx, Field, ID, Query, Resolver } from 'type-graphql';

const EventList = CursorList(EventRecord, 'EventList');

@ArgsType()
class EventFilterArgs extends CursorArgs {
  @Field({ nullable: true, description: 'Only events about this resource type (`content`, `content-types`, `components`, …).' })
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
  @Query(() => EventList, { description: 'Events of a project, oldest first (cursor pagination); API keys see published-state events only.' })
  async events(@Args() scope: ProjectScopeArgs, @Args() args: EventFilterArgs, @Ctx() ctx: Context) {
    const since = args.since === undefined ? undefined : new Date(args.since);
    if (since && Number.isNaN(since.getTime())) throw new BadRequestError('since must be an ISO 8601 timestamp.', { parameter: 'since' });
    const filter = await eventFilterFor(ctx, { ...scope, resourceType: args.resourceType, resourceId: args.resourceId, type: args.type, since });
    return listEvents(ctx.em, filter, args);
  }
}
