// GraphQL surface of components (reads; writes arrive with the compiler and sandbox).
import { NotFoundError } from '@cp/errors';
import { authorizeClientRead, CursorArgs, CursorList, keysetPage, ProjectScopeArgs, type Context } from '@cp/graphql';
import { Arg, Args, Ctx, FieldResolver, ID, Query, Resolver, Root } from 'type-graphql';
import { User, userRef } from '../shared/user.reference';
import { Component } from './component.entity';

const ComponentList = CursorList(Component, 'ComponentList');

@Resolver(() => Component)
export class ComponentResolver {
  @Query(() => ComponentList, { description: 'Components of a project, newest first (cursor pagination).' })
  async components(@Args() scope: ProjectScopeArgs, @Args() page: CursorArgs, @Ctx() ctx: Context) {
    await authorizeClientRead(ctx, scope, 'components');
    const where = { organizationId: scope.organizationId, projectId: scope.projectId };
    return keysetPage(ctx.em, Component, { where, sortField: 'createdAt', direction: 'desc', args: page });
  }

  @Query(() => Component, { description: 'One component.' })
  async component(@Args() scope: ProjectScopeArgs, @Arg('id', () => ID) id: string, @Ctx() ctx: Context) {
    await authorizeClientRead(ctx, scope, 'components');
    const component = await ctx.em.findOne(Component, { id, organizationId: scope.organizationId, projectId: scope.projectId });
    if (!component) throw new NotFoundError('Component', id);
    return component;
  }

  @FieldResolver(() => User, { description: 'The user who created the component.' })
  createdBy(@Root() component: Component): User {
    return userRef(component.createdById);
  }
}
