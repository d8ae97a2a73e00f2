// GraphQL surface of roles.
import { authorizeOrganization, OffsetArgs, OffsetList, type Context, ExpectedRevisionArgs } from '@cp/graphql';
import { Arg, Args, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import { authorizeOrganizationAdmin } from '../shared/authorize-admin';
import { Role } from './role.entity';
import { CreateRoleInput, UpdateRoleInput } from './role.inputs';
import { RoleService } from './role.service';

const RoleList = OffsetList(Role, 'RoleList');

@Resolver(() => Role)
export class RoleResolver {
  private readonly service = new RoleService();

  @Query(() => RoleList, { description: 'Roles of an organization (offset pagination).' })
  roles(
    @Arg('organizationId', () => ID, { description: 'The organization.' }) organizationId: string,
    @Args() page: OffsetArgs,
    @Ctx() ctx: Context,
  ) {
    authorizeOrganization(ctx, organizationId, 'roles', 'read');
    return this.service.list(ctx.em, organizationId, page);
  }

  @Query(() => Role, { description: 'One role; an unknown id gives NOT_FOUND.' })
  role(
    @Arg('organizationId', () => ID, { description: 'The organization.' }) organizationId: string,
    @Arg('id', () => ID, { description: 'The role.' }) id: string,
    @Ctx() ctx: Context,
  ) {
    authorizeOrganization(ctx, organizationId, 'roles', 'read');
    return this.service.get(ctx.em, organizationId, id);
  }

  @Mutation(() => Role, { description: 'Creates a role; it may grant only flags the caller holds.' })
  createRole(
    @Arg('organizationId', () => ID, { description: 'The organization.' }) organizationId: string,
    @Arg('input', { description: 'The request body (REST: the JSON body).' }) input: CreateRoleInput,
    @Ctx() ctx: Context,
  ) {
    return this.service.create(ctx.em, authorizeOrganizationAdmin(ctx, organizationId, 'roles', 'create'), input);
  }

  @Mutation(() => Role, { description: 'Changes the members given; the Owner role keeps its name and permissions.' })
  updateRole(
    @Arg('organizationId', () => ID, { description: 'The organization.' }) organizationId: string,
    @Arg('id', () => ID, { description: 'The role.' }) id: string,
    @Arg('input', { description: 'The request body (REST: the JSON body).' }) input: UpdateRoleInput,
    @Args() _revision: ExpectedRevisionArgs,
    @Ctx() ctx: Context,
  ) {
    return this.service.update(ctx.em, authorizeOrganizationAdmin(ctx, organizationId, 'roles', 'update'), id, input);
  }

  @Mutation(() => Role, { description: 'Deletes a role no user holds; the Owner role cannot be deleted.' })
  deleteRole(
    @Arg('organizationId', () => ID, { description: 'The organization.' }) organizationId: string,
    @Arg('id', () => ID, { description: 'The role.' }) id: string,
    @Args() _revision: ExpectedRevisionArgs,
    @Ctx() ctx: Context,
  ) {
    return this.service.delete(ctx.em, authorizeOrganizationAdmin(ctx, organizationId, 'roles', 'delete'), id);
  }
}
