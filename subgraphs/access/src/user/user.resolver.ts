// GraphQL surface of users.
import { NotFoundError } from '@cp/errors';
import { authorizeOrganization, OffsetArgs, OffsetList, offsetPage, type Context } from '@cp/graphql';
import { Arg, Args, Ctx, ID, Query, Resolver } from 'type-graphql';
import { User } from './user.entity';

const UserList = OffsetList(User, 'UserList');

@Resolver(() => User)
export class UserResolver {
  @Query(() => UserList, { description: 'Users of an organization.' })
  users(@Arg('organizationId', () => ID) organizationId: string, @Args() page: OffsetArgs, @Ctx() ctx: Context) {
    authorizeOrganization(ctx, organizationId, 'users', 'read');
    return offsetPage(ctx.em, User, { organizationId }, page);
  }

  @Query(() => User, { description: 'One user.' })
  async user(@Arg('organizationId', () => ID) organizationId: string, @Arg('id', () => ID) id: string, @Ctx() ctx: Context) {
    authorizeOrganization(ctx, organizationId, 'users', 'read');
    const user = await ctx.em.findOne(User, { id, organizationId });
    if (!user) throw new NotFoundError('User', id);
    return user;
  }
}
