// GraphQL surface of roles.
import { NotFoundError } from '@cp/errors';
import { authorizeOrganization, OffsetArgs, OffsetList, offsetPage, type Context } from '@cp/graphql';
import { Arg, Args, Ctx, ID, Query, Resolver } from 'type-graphql';
import { Role } from './role.entity';

const RoleList = OffsetList(Role, 'RoleList');

@Resolver(() => Role)
export class RoleResolver {
  @Query(() => RoleList, { description: 'Roles of an organization.' })
  roles(@Arg('organizationId', () => ID) organizationId: string, @Args() page: OffsetArgs, @Ctx() ctx: Context) {
    authorizeOrganization(ctx, organizationId, 'roles', 'read');
    return offsetPage(ctx.em, Role, { organizationId }, page);
  }

  @Query(() => Role, { description: 'One role; an unknown id gives NOT_FOUND.' })
  async role(@Arg('organizationId', () => ID) organizationId: string, @Arg('id', () => ID) id: string, @Ctx() ctx: Context) {
    authorizeOrganization(ctx, organizationId, 'roles', 'read');
    const role = await ctx.em.findOne(Role, { id, organizationId });
    if (!role) throw new NotFoundError('Role', id);
    return role;
  }
}
