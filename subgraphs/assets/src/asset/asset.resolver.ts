// GraphQL surface of assets (reads; upload arrives with the storage layer).
import type { Config } from '@cp/config';
import { NotFoundError } from '@cp/errors';
import { authorizeClientRead, CursorArgs, CursorList, keysetPage, ProjectScopeArgs, type Context } from '@cp/graphql';
import { Arg, Args, Ctx, FieldResolver, ID, Query, Resolver, Root } from 'type-graphql';
import { Asset } from './asset.entity';

const AssetList = CursorList(Asset, 'AssetList');

@Resolver(() => Asset)
export class AssetResolver {
  constructor(private readonly cdnUrl: Config['http']['cdnUrl']) {}

  @Query(() => AssetList, { description: 'Assets of a project, newest first (cursor pagination).' })
  async assets(@Args() scope: ProjectScopeArgs, @Args() page: CursorArgs, @Ctx() ctx: Context) {
    const { publishedOnly } = await authorizeClientRead(ctx, scope, 'assets');
    const where = { organizationId: scope.organizationId, projectId: scope.projectId, ...(publishedOnly ? { status: 'active' } : {}) };
    return keysetPage(ctx.em, Asset, { where, sortField: 'createdAt', direction: 'desc', args: page });
  }

  @Query(() => Asset, { description: 'One asset.' })
  async asset(@Args() scope: ProjectScopeArgs, @Arg('id', () => ID) id: string, @Ctx() ctx: Context) {
    await authorizeClientRead(ctx, scope, 'assets');
    const asset = await ctx.em.findOne(Asset, { id, organizationId: scope.organizationId, projectId: scope.projectId });
    if (!asset) throw new NotFoundError('Asset', id);
    return asset;
  }

  @FieldResolver(() => String, { description: 'Delivery address on the CDN path.' })
  url(@Root() asset: Asset): string {
    return `${this.cdnUrl}/${asset.organizationId}/${asset.projectId}/assets/${asset.id}/${encodeURIComponent(asset.name)}`;
  }
}
