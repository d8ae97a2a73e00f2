// GraphQL surface of organizations: a user sees its own organization only.
import { authorizeOrganization, OffsetArgs, OffsetList, offsetPage, type Context } from '@cp/graphql';
import { NotFoundError, UnauthorizedError } from '@cp/errors';
import { Arg, Args, Ctx, ID, Query, Resolver } from 'type-graphql';
import { Organization } from './organization.entity';

const OrganizationList = OffsetList(Organization, 'OrganizationList');

@Resolver(() => Organization)
export class OrganizationResolver {
  @Query(() => OrganizationList, { description: 'Organizations the caller belongs to.' })
  organizations(@Args() page: OffsetArgs, @Ctx() ctx: Context) {
    if (ctx.principal.kind !== 'user') throw new UnauthorizedError();
    const { organizationId } = authorizeOrganization(ctx, ctx.principal.organizationId, 'organizations', 'read');
    return offsetPage(ctx.em, Organization, { id: organizationId }, page);
  }

  @Query(() => Organization, { description: 'One organization by id.' })
  async organization(@Arg('id', () => ID) id: string, @Ctx() ctx: Context): Promise<Organization> {
    authorizeOrganization(ctx, id, 'organizations', 'read');
    const org = await ctx.em.findOne(Organization, { id });
    if (!org) throw new NotFoundError('Organization', id);
    return org;
  }
}
