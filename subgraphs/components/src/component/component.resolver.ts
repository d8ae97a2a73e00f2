// GraphQL surface of components; REST routes are derived from these fields (see routes.ts).
import {
  authorizeClientRead,
  authorizeProject,
  CursorArgs,
  CursorList,
  ProjectScopeArgs,
  VersionList,
  type Context,
  UserReference,
  userRef,
  VersionFieldsResolver,
  ExpectedRevisionArgs,
} from '@cp/graphql';
import { Arg, Args, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import { ComponentVersion } from './component-version.entity';
import { Component } from './component.entity';
import { CreateComponentInput, RollbackInput, UpdateComponentInput } from './component.inputs';
import { ComponentService } from './component.service';
import { getVisibleComponent, listVisibleComponents } from './published-components';

const ComponentList = CursorList(Component, 'ComponentList');
const ComponentVersionList = VersionList(ComponentVersion, 'ComponentVersionList');
const idArg = { description: 'The component.' };

@Resolver(() => Component)
export class ComponentResolver {
  private readonly service = new ComponentService();

  @Query(() => ComponentList, {
    description:
      'Components of a project, newest first; API keys see last published versions only, preview keys working copies.',
  })
  async components(@Args() scope: ProjectScopeArgs, @Args() page: CursorArgs, @Ctx() ctx: Context) {
    const { visibility } = await authorizeClientRead(ctx, scope, 'components');
    if (visibility === 'admin') return this.service.list(ctx.em, scope, page);
    return listVisibleComponents(ctx.em, scope, page, visibility);
  }

  @Query(() => Component, {
    description: 'One component; API keys see its last published version, preview keys its working copy.',
  })
  async component(@Args() scope: ProjectScopeArgs, @Arg('id', () => ID, idArg) id: string, @Ctx() ctx: Context) {
    const { visibility } = await authorizeClientRead(ctx, scope, 'components');
    if (visibility === 'admin') return this.service.get(ctx.em, scope, id);
    return getVisibleComponent(ctx.em, scope, id, visibility);
  }

  @Query(() => ComponentVersionList, {
    description: 'Published versions of a component, newest first (D11: `{data}`).',
  })
  async componentVersions(
    @Args() scope: ProjectScopeArgs,
    @Arg('id', () => ID, idArg) id: string,
    @Ctx() ctx: Context,
  ) {
    await authorizeProject(ctx, scope, 'components', 'read');
    return { data: await this.service.versions(ctx.em, scope, id) };
  }

  @Mutation(() => Component, {
    description:
      'Creates a `draft` component: compiles the source, runs `metadata()` in a sandbox, derives the props schema.',
  })
  async createComponent(
    @Args() scope: ProjectScopeArgs,
    @Arg('input', { description: 'The request body (REST: the JSON body).' }) input: CreateComponentInput,
    @Ctx() ctx: Context,
  ) {
    const user = await authorizeProject(ctx, scope, 'components', 'create');
    return this.service.create(ctx.em, scope, input, user.userId);
  }

  @Mutation(() => Component, { description: 'Changes the members given; a published component becomes `modified`.' })
  async updateComponent(
    @Args() scope: ProjectScopeArgs,
    @Arg('id', () => ID, idArg) id: string,
    @Arg('input', { description: 'The request body (REST: the JSON body).' }) input: UpdateComponentInput,
    @Args() _revision: ExpectedRevisionArgs,
    @Ctx() ctx: Context,
  ) {
    const user = await authorizeProject(ctx, scope, 'components', 'update');
    return this.service.update(ctx.em, scope, id, input, user.userId);
  }

  @Mutation(() => Component, {
    description: 'Soft-deletes a component; COMPONENT_IN_USE when a package references it.',
  })
  async deleteComponent(
    @Args() scope: ProjectScopeArgs,
    @Arg('id', () => ID, idArg) id: string,
    @Args() _revision: ExpectedRevisionArgs,
    @Ctx() ctx: Context,
  ) {
    const user = await authorizeProject(ctx, scope, 'components', 'delete');
    return this.service.delete(ctx.em, scope, id, user.userId);
  }

  @Mutation(() => Component, { description: 'Cancels the working copy of a `modified` component.' })
  async discardComponent(
    @Args() scope: ProjectScopeArgs,
    @Arg('id', () => ID, idArg) id: string,
    @Args() _revision: ExpectedRevisionArgs,
    @Ctx() ctx: Context,
  ) {
    const user = await authorizeProject(ctx, scope, 'components', 'update');
    return this.service.discard(ctx.em, scope, id, user.userId);
  }

  @Mutation(() => Component, {
    description: 'Makes a working copy from an earlier version of a `published` component.',
  })
  async rollbackComponent(
    @Args() scope: ProjectScopeArgs,
    @Arg('id', () => ID, idArg) id: string,
    @Arg('input', { description: 'The request body (REST: the JSON body).' }) input: RollbackInput,
    @Args() _revision: ExpectedRevisionArgs,
    @Ctx() ctx: Context,
  ) {
    const user = await authorizeProject(ctx, scope, 'components', 'update');
    return this.service.rollback(ctx.em, scope, id, input.version, user.userId);
  }

  @Mutation(() => Component, {
    description: 'Restores a deleted component as `modified` (or `draft` if never published).',
  })
  async restoreComponent(
    @Args() scope: ProjectScopeArgs,
    @Arg('id', () => ID, idArg) id: string,
    @Args() _revision: ExpectedRevisionArgs,
    @Ctx() ctx: Context,
  ) {
    const user = await authorizeProject(ctx, scope, 'components', 'update');
    return this.service.restore(ctx.em, scope, id, user.userId);
  }

  @FieldResolver(() => UserReference, { description: 'The user who created the component.' })
  createdBy(@Root('createdById') createdById: string): UserReference {
    return userRef(createdById);
  }
}

export const ComponentVersionResolver = VersionFieldsResolver(ComponentVersion);
