// GraphQL surface of component assets; upload is multipart REST (component-asset.http.ts).
import { authorizeProject, ProjectScopeArgs, type Context } from '@cp/graphql';
import { Arg, Args, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import { ComponentAsset } from './component-asset.entity';
import { ComponentAssetStatusInput } from './component-asset.inputs';
import type { ComponentAssetService } from './component-asset.service';
import { componentAssetUrl } from './component-asset-url';

@Resolver(() => ComponentAsset)
export class ComponentAssetResolver {
  constructor(
    private readonly service: ComponentAssetService,
    private readonly cdnUrl: string,
  ) {}

  @Query(() => [ComponentAsset], { description: 'Files attached to a component, oldest first.' })
  async componentAssets(
    @Args() scope: ProjectScopeArgs,
    @Arg('componentId', () => ID, { description: 'The component.' }) componentId: string,
    @Ctx() ctx: Context,
  ) {
    await authorizeProject(ctx, scope, 'components', 'read');
    return this.service.list(ctx.em, scope, componentId);
  }

  @Mutation(() => ComponentAsset, {
    description: 'Moves a component asset to `active` or `deleted` (ASSET_IN_USE when a published package uses it).',
  })
  async setComponentAssetStatus(
    @Args() scope: ProjectScopeArgs,
    @Arg('componentId', () => ID, { description: 'The component.' }) componentId: string,
    @Arg('assetId', () => ID, { description: 'The asset.' }) assetId: string,
    @Arg('input', { description: 'The request body (REST: the JSON body).' }) input: ComponentAssetStatusInput,
    @Ctx() ctx: Context,
  ) {
    const user = await authorizeProject(ctx, scope, 'components', 'update');
    return this.service.setStatus(ctx.em, scope, componentId, assetId, input.status, user.userId);
  }

  @FieldResolver(() => String, { description: 'Delivery address.' })
  url(@Root() asset: ComponentAsset): string {
    return componentAssetUrl(this.cdnUrl, asset);
  }
}
