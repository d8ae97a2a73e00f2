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
  LifecycleMutations,
} from '@cp/graphql';
import { Arg, Args, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import { ComponentVersion } from './component-version.entity';
import { Component } from './component.entity';
import { CreateComponentInput, UpdateComponentInput } from './component.inputs';
import { ComponentService } from './component.service';
import { getVisibleComponent, listVisibleComponents } from './published-components';

const ComponentList = CursorList(Component, 'ComponentList');
const ComponentVersionList = VersionList(ComponentVersion, 'ComponentVersionList');
const idArg = { description: 'The component.' };

/** Reads, create and update: the schema lists them before the lifecycle mutations. */
@Resolver(() => Component)
class ComponentReadsAndEdits {
  readonly service = new ComponentService();

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
    description: 'Published versions of a component, newest first, not paginated.',
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
}

/** The lifecycle mutations, after create and update in the schema (lifecycle-mutations.ts in @cp/graphql). */
const ComponentLifecycle = LifecycleMutations(ComponentReadsAndEdits, {
  type: Component,
  name: 'Component',
  resource: 'components',
  idDescription: idArg.description,
  mutations: {
    delete: 'Soft-deletes a component; COMPONENT_IN_USE when a package references it.',
    discard: 'Cancels the working copy of a `modified` component.',
    rollback: 'Makes a working copy from an earlier version of a `published` component.',
    restore: 'Restores a deleted component as `modified` (or `draft` if never published).',
  },
});

@Resolver(() => Component)
export class ComponentResolver extends ComponentLifecycle {
  @FieldResolver(() => UserReference, { description: 'The user who created the component.' })
  createdBy(@Root('createdById') createdById: string): UserReference {
    return userRef(createdById);
  }
}

export const ComponentVersionResolver = VersionFieldsResolver(ComponentVersion);
