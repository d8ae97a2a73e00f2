// GraphQL surface of users.
import { authorizeOrganization, OffsetArgs, OffsetList, type Context } from '@cp/graphql';
import { Arg, Args, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import { authorizeOrganizationAdmin } from '../shared/authorize-admin';
import { User } from './user.entity';
import { CreateUserInput, UpdateUserInput } from './user.inputs';
import { UserService } from './user.service';

const UserList = OffsetList(User, 'UserList');

@Resolver(() => User)
export class UserResolver {
  private readonly service = new UserService();

  @Query(() => UserList, { description: 'Users of an organization (offset pagination).' })
  users(@Arg('organizationId', () => ID, { description: 'The organization.' }) organizationId: string, @Args() page: OffsetArgs, @Ctx() ctx: Context) {
    authorizeOrganization(ctx, organizationId, 'users', 'read');
    return this.service.list(ctx.em, organizationId, page);
  }

  @Query(() => User, { description: 'One user.' })
  user(@Arg('organizationId', () => ID, { description: 'The organization.' }) organizationId: string, @Arg('id', () => ID, { description: 'The user.' }) id: string, @Ctx() ctx: Context) {
    authorizeOrganization(ctx, organizationId, 'users', 'read');
    return this.service.get(ctx.em, organizationId, id);
  }

  @Mutation(() => User, { description: 'Creates a user with a role no wider than the caller’s.' })
  createUser(@Arg('organizationId', () => ID, { description: 'The organization.' }) organizationId: string, @Arg('input', { description: 'The request body (REST: the JSON body).' }) input: CreateUserInput, @Ctx() ctx: Context) {
    return this.service.create(ctx.em, authorizeOrganizationAdmin(ctx, organizationId, 'users', 'create'), input);
  }

  @Mutation(() => User, { description: 'Changes the members given; a new password revokes the user’s earlier tokens.' })
  updateUser(
    @Arg('organizationId', () => ID, { description: 'The organization.' }) organizationId: string,
    @Arg('id', () => ID, { description: 'The user.' }) id: string,
    @Arg('input', { description: 'The request body (REST: the JSON body).' }) input: UpdateUserInput,
    @Ctx() ctx: Context,
  ) {
    return this.service.update(ctx.em, authorizeOrganizationAdmin(ctx, organizationId, 'users', 'update'), id, input);
  }

  @Mutation(() => User, { description: 'Removes a user and revokes its tokens; the last Owner cannot be removed.' })
  deleteUser(@Arg('organizationId', () => ID, { description: 'The organization.' }) organizationId: string, @Arg('id', () => ID, { description: 'The user.' }) id: string, @Ctx() ctx: Context) {
    return this.service.delete(ctx.em, authorizeOrganizationAdmin(ctx, organizationId, 'users', 'delete'), id);
  }
}
