// GraphQL surface of organizations: a user sees and administers its own organization only.
import { UnauthorizedError } from '@cp/errors';
import { authorizeOrganization, OffsetArgs, OffsetList, type Context } from '@cp/graphql';
import { Arg, Args, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import { authorizeOrganizationAdmin } from '../shared/authorize-admin';
import { Organization } from './organization.entity';
import { UpdateOrganizationInput } from './organization.inputs';
import { OrganizationService } from './organization.service';

const OrganizationList = OffsetList(Organization, 'OrganizationList');

@Resolver(() => Organization)
export class OrganizationResolver {
  private readonly service = new OrganizationService();

  @Query(() => OrganizationList, { description: 'Organizations the caller belongs to.' })
  organizations(@Args() page: OffsetArgs, @Ctx() ctx: Context) {
    if (ctx.principal.kind !== 'user') throw new UnauthorizedError();
    const { organizationId } = authorizeOrganization(ctx, ctx.principal.organizationId, 'organizations', 'read');
    return this.service.list(ctx.em, organizationId, page);
  }

  @Query(() => Organization, { description: 'One organization by id.' })
  organization(
    @Arg('id', () => ID, { description: 'The organization.' }) id: string,
    @Ctx() ctx: Context,
  ): Promise<Organization> {
    authorizeOrganization(ctx, id, 'organizations', 'read');
    return this.service.get(ctx.em, id);
  }

  @Mutation(() => Organization, { description: 'Changes the caller’s organization.' })
  updateOrganization(
    @Arg('id', () => ID, { description: 'The organization.' }) id: string,
    @Arg('input', { description: 'The request body (REST: the JSON body).' }) input: UpdateOrganizationInput,
    @Ctx() ctx: Context,
  ) {
    return this.service.update(ctx.em, authorizeOrganizationAdmin(ctx, id, 'organizations', 'update'), input);
  }

  @Mutation(() => Organization, {
    description: 'Deletes the caller’s organization with its projects, users, roles and keys.',
  })
  deleteOrganization(@Arg('id', () => ID, { description: 'The organization.' }) id: string, @Ctx() ctx: Context) {
    return this.service.delete(ctx.em, authorizeOrganizationAdmin(ctx, id, 'organizations', 'delete'));
  }
}
