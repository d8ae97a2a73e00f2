// GraphQL surface of releases; REST routes are derived from these fields (see routes.ts).
import {
  authorizeProject,
  CursorList,
  ExpectedRevisionArgs,
  ProjectScopeArgs,
  type Context,
  UserReference,
  userRef,
} from '@cp/graphql';
import { Arg, Args, Ctx, Field, FieldResolver, ID, Mutation, ObjectType, Query, Resolver, Root } from 'type-graphql';
import { Release } from './release.entity';
import { ReleaseInput, ReleaseListArgs } from './release.inputs';
import { ReleaseService } from './release.service';

const ReleaseList = CursorList(Release, 'ReleaseList');
const idArg = { description: 'The release.' };
const body = { description: 'The request body (REST: the JSON body).' };

@ObjectType('ReleaseProblem', {
  description: 'Why an item of a release would be refused: the error its own request would answer.',
})
class ReleaseProblemObject {
  @Field(() => String, { description: '`content` or `content-types`.' })
  resourceType!: string;

  @Field(() => ID, { description: 'The entry or content type.' })
  resourceId!: string;

  @Field({ description: 'Error code, e.g. `INVALID_STATUS_TRANSITION` or `NOT_FOUND`.' })
  code!: string;

  @Field({ description: 'Human-readable message.' })
  message!: string;
}

@ObjectType('ReleaseValidation', { description: 'Whether the release would publish now, and what would be refused.' })
class ReleaseValidation {
  @Field({ description: 'True when every item would be applied.' })
  valid!: boolean;

  @Field(() => [ReleaseProblemObject], { description: 'One entry per refused item, in the order items are applied.' })
  problems!: ReleaseProblemObject[];
}

@Resolver(() => Release)
export class ReleaseResolver {
  constructor(private readonly service: ReleaseService) {}

  @Query(() => ReleaseList, { description: 'Releases of a project, newest first (cursor pagination).' })
  async releases(@Args() scope: ProjectScopeArgs, @Args() args: ReleaseListArgs, @Ctx() ctx: Context) {
    await authorizeProject(ctx, scope, 'content', 'read');
    return this.service.list(ctx.em, scope, args);
  }

  @Query(() => Release, { description: 'One release.' })
  async release(@Args() scope: ProjectScopeArgs, @Arg('id', () => ID, idArg) id: string, @Ctx() ctx: Context) {
    await authorizeProject(ctx, scope, 'content', 'read');
    return this.service.get(ctx.em, scope, id);
  }

  @Mutation(() => Release, { description: 'Creates an `open` release.' })
  async createRelease(@Args() scope: ProjectScopeArgs, @Arg('input', body) input: ReleaseInput, @Ctx() ctx: Context) {
    const user = await authorizeProject(ctx, scope, 'content', 'update');
    return this.service.create(ctx.em, scope, input, user.userId);
  }

  @Mutation(() => Release, {
    description: 'Changes the members given (`items` replaces the list); a published release can no longer change.',
  })
  async updateRelease(
    @Args() scope: ProjectScopeArgs,
    @Arg('id', () => ID, idArg) id: string,
    @Arg('input', body) input: ReleaseInput,
    @Args() _revision: ExpectedRevisionArgs,
    @Ctx() ctx: Context,
  ) {
    const user = await authorizeProject(ctx, scope, 'content', 'update');
    return this.service.update(ctx.em, scope, id, input, user.userId);
  }

  @Mutation(() => Release, { description: 'Deletes an open or failed release and cancels its pending schedules.' })
  async deleteRelease(
    @Args() scope: ProjectScopeArgs,
    @Arg('id', () => ID, idArg) id: string,
    @Args() _revision: ExpectedRevisionArgs,
    @Ctx() ctx: Context,
  ) {
    const user = await authorizeProject(ctx, scope, 'content', 'update');
    return this.service.delete(ctx.em, scope, id, user.userId);
  }

  @Mutation(() => ReleaseValidation, { description: 'Checks whether the release would publish now; changes nothing.' })
  async validateRelease(
    @Args() scope: ProjectScopeArgs,
    @Arg('id', () => ID, idArg) id: string,
    @Ctx() ctx: Context,
  ): Promise<ReleaseValidation> {
    const user = await authorizeProject(ctx, scope, 'content', 'read');
    const problems = await this.service.validate(ctx.em, scope, id, user.userId);
    return { valid: problems.length === 0, problems };
  }

  @Mutation(() => Release, {
    description:
      'Applies every item in one transaction, all or nothing (RELEASE_FAILED lists every refused item); needs the `publish` right on each kind of resource it holds.',
  })
  async publishRelease(
    @Args() scope: ProjectScopeArgs,
    @Arg('id', () => ID, idArg) id: string,
    @Args() _revision: ExpectedRevisionArgs,
    @Ctx() ctx: Context,
  ) {
    const user = await authorizeProject(ctx, scope, 'content', 'read');
    return this.service.publish(ctx.em, scope, id, user.userId, async (resources) => {
      for (const resource of resources) await authorizeProject(ctx, scope, resource, 'publish');
    });
  }

  @FieldResolver(() => UserReference, { description: 'The user who created the release.' })
  createdBy(@Root('createdById') createdById: string): UserReference {
    return userRef(createdById);
  }
}
