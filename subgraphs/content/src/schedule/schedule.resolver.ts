// GraphQL surface of schedules; REST routes are derived from these fields (see routes.ts).
import { authorizeProject, CursorList, ProjectScopeArgs, type Context, UserReference, userRef } from '@cp/graphql';
import { Arg, Args, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import { Schedule } from './schedule.entity';
import { CreateScheduleInput, ScheduleListArgs } from './schedule.inputs';
import { permissionOf, ScheduleService } from './schedule.service';

const ScheduleList = CursorList(Schedule, 'ScheduleList');
const idArg = { description: 'The schedule.' };

@Resolver(() => Schedule)
export class ScheduleResolver {
  private readonly service = new ScheduleService();

  @Query(() => ScheduleList, {
    description: 'Schedules of a project, soonest first (cursor pagination), filtered by resource and status.',
  })
  async schedules(@Args() scope: ProjectScopeArgs, @Args() args: ScheduleListArgs, @Ctx() ctx: Context) {
    await authorizeProject(ctx, scope, 'content', 'read');
    return this.service.list(ctx.em, scope, args);
  }

  @Query(() => Schedule, { description: 'One schedule.' })
  async schedule(@Args() scope: ProjectScopeArgs, @Arg('id', () => ID, idArg) id: string, @Ctx() ctx: Context) {
    await authorizeProject(ctx, scope, 'content', 'read');
    return this.service.get(ctx.em, scope, id);
  }

  @Mutation(() => Schedule, {
    description: 'Schedules a publish or unpublish; needs the resource’s `publish` flag now and when it runs.',
  })
  async createSchedule(
    @Args() scope: ProjectScopeArgs,
    @Arg('input', { description: 'The request body (REST: the JSON body).' }) input: CreateScheduleInput,
    @Ctx() ctx: Context,
  ) {
    const valid = this.service.validate(input);
    const user = await authorizeProject(ctx, scope, permissionOf(valid.resourceType), 'publish');
    return this.service.create(ctx.em, scope, valid, user.userId);
  }

  @Mutation(() => Schedule, { description: 'Cancels a pending schedule (INVALID_STATUS_TRANSITION otherwise).' })
  async cancelSchedule(@Args() scope: ProjectScopeArgs, @Arg('id', () => ID, idArg) id: string, @Ctx() ctx: Context) {
    const schedule = await this.service.get(ctx.em, scope, id).catch(async (err) => {
      await authorizeProject(ctx, scope, 'content', 'read');
      throw err;
    });
    await authorizeProject(ctx, scope, permissionOf(schedule.resourceType), 'publish');
    return this.service.cancel(ctx.em, scope, id);
  }

  @FieldResolver(() => UserReference, {
    description: 'The user who created the schedule; the action runs with this user’s rights.',
  })
  createdBy(@Root('createdById') createdById: string): UserReference {
    return userRef(createdById);
  }
}
