// GraphQL surface of users.
import { authorizeOrganization, OffsetArgs, OffsetList, type Context, ExpectedRevisionArgs } from '@cp/graphql';
import { Arg, Args, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import { authorizeOrganizationAdmin } from '../shared/authorize-admin';
import { User } from './user.entity';
import { CreateUserInput, UpdateUserInput } from './user.inputs';
import { UserService } from './user.service';

const UserList = OffsetList(User, 'UserList');

/**
 * An API key is a public credential shipped in websites: through `createdBy` it may learn that a user id made a
 * thing, never who that is. Null without an error, so a client read never fails over it.
 */
function staffOnly<T>(ctx: Context, value: T): T | null {
  return ctx.principal.kind === 'apiKey' ? null : value;
}

@Resolver(() => User)
export class UserResolver {
  private readonly service = new UserService();

  @Query(() => UserList, { description: 'Users of an organization (offset pagination).' })
  users(
    @Arg('organizationId', () => ID, { description: 'The organization.' }) organizationId: string,
    @Args() page: OffsetArgs,
    @Ctx() ctx: Context,
  ) {
    authorizeOrganization(ctx, organizationId, 'users', 'read');
    return this.service.list(ctx.em, organizationId, page);
  }

  @Query(() => User, { description: 'One user.' })
  user(
    @Arg('organizationId', () => ID, { description: 'The organization.' }) organizationId: string,
    @Arg('id', () => ID, { description: 'The user.' }) id: string,
    @Ctx() ctx: Context,
  ) {
    authorizeOrganization(ctx, organizationId, 'users', 'read');
    return this.service.get(ctx.em, organizationId, id);
  }

  @Mutation(() => User, { description: 'Creates a user with a role no wider than the caller’s.' })
  createUser(
    @Arg('organizationId', () => ID, { description: 'The organization.' }) organizationId: string,
    @Arg('input', { description: 'The request body (REST: the JSON body).' }) input: CreateUserInput,
    @Ctx() ctx: Context,
  ) {
    return this.service.create(ctx.em, authorizeOrganizationAdmin(ctx, organizationId, 'users', 'create'), input);
  }

  @Mutation(() => User, { description: 'Changes the members given; a new password revokes the user’s earlier tokens.' })
  updateUser(
    @Arg('organizationId', () => ID, { description: 'The organization.' }) organizationId: string,
    @Arg('id', () => ID, { description: 'The user.' }) id: string,
    @Arg('input', { description: 'The request body (REST: the JSON body).' }) input: UpdateUserInput,
    @Args() _revision: ExpectedRevisionArgs,
    @Ctx() ctx: Context,
  ) {
    return this.service.update(ctx.em, authorizeOrganizationAdmin(ctx, organizationId, 'users', 'update'), id, input);
  }

  @Mutation(() => User, { description: 'Removes a user and revokes its tokens; the last Owner cannot be removed.' })
  deleteUser(
    @Arg('organizationId', () => ID, { description: 'The organization.' }) organizationId: string,
    @Arg('id', () => ID, { description: 'The user.' }) id: string,
    @Args() _revision: ExpectedRevisionArgs,
    @Ctx() ctx: Context,
  ) {
    return this.service.delete(ctx.em, authorizeOrganizationAdmin(ctx, organizationId, 'users', 'delete'), id);
  }

  @FieldResolver(() => ID, { nullable: true, description: 'The organization the user belongs to; null for API keys.' })
  organizationId(@Root() user: User, @Ctx() ctx: Context) {
    return staffOnly(ctx, user.organizationId);
  }

  @FieldResolver(() => String, {
    nullable: true,
    description: 'Sign-in email address, unique across the service; null for API keys.',
  })
  email(@Root() user: User, @Ctx() ctx: Context) {
    return staffOnly(ctx, user.email);
  }

  @FieldResolver(() => String, { nullable: true, description: 'Display name; null for API keys.' })
  name(@Root() user: User, @Ctx() ctx: Context) {
    return staffOnly(ctx, user.name);
  }

  @FieldResolver(() => ID, {
    nullable: true,
    description: 'The role that grants this user its permissions; null for API keys.',
  })
  roleId(@Root() user: User, @Ctx() ctx: Context) {
    return staffOnly(ctx, user.roleId);
  }

  @FieldResolver(() => Date, { nullable: true, description: 'When the user was created; null for API keys.' })
  createdAt(@Root() user: User, @Ctx() ctx: Context) {
    return staffOnly(ctx, user.createdAt);
  }

  @FieldResolver(() => Date, { nullable: true, description: 'When the user last changed; null for API keys.' })
  updatedAt(@Root() user: User, @Ctx() ctx: Context) {
    return staffOnly(ctx, user.updatedAt);
  }
}
