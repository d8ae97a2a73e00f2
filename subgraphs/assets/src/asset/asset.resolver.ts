// GraphQL surface of assets; upload is multipart REST (asset.http.ts) because the gateway forwards JSON only.
import {
  authorizeClientRead,
  authorizeProject,
  CursorList,
  ProjectScopeArgs,
  type Context,
  UserReference,
  userRef,
} from '@cp/graphql';
import { Arg, Args, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import { Asset } from './asset.entity';
import { AssetListArgs, UpdateAssetInput } from './asset.inputs';
import type { AssetService } from './asset.service';
import { assetUrl } from './asset-url';

const AssetList = CursorList(Asset, 'AssetList');

@Resolver(() => Asset)
export class AssetResolver {
  constructor(
    private readonly service: AssetService,
    private readonly cdnUrl: string,
  ) {}

  @Query(() => AssetList, {
    description: 'Assets of a project, newest first (cursor pagination); API keys see active assets only.',
  })
  async assets(@Args() scope: ProjectScopeArgs, @Args() args: AssetListArgs, @Ctx() ctx: Context) {
    const { visibility } = await authorizeClientRead(ctx, scope, 'assets');
    // Assets have no working copy: every key (preview keys too) sees the active ones.
    return this.service.list(ctx.em, scope, args, visibility !== 'admin');
  }

  @Query(() => Asset, { description: 'One asset.' })
  async asset(
    @Args() scope: ProjectScopeArgs,
    @Arg('id', () => ID, { description: 'The asset.' }) id: string,
    @Ctx() ctx: Context,
  ) {
    const { visibility } = await authorizeClientRead(ctx, scope, 'assets');
    return this.service.get(ctx.em, scope, id, visibility !== 'admin');
  }

  @Mutation(() => Asset, { description: 'Renames, retags, moves or annotates an asset; the bytes never change.' })
  async updateAsset(
    @Args() scope: ProjectScopeArgs,
    @Arg('id', () => ID, { description: 'The asset.' }) id: string,
    @Arg('input', { description: 'The request body (REST: the JSON body).' }) input: UpdateAssetInput,
    @Ctx() ctx: Context,
  ) {
    const user = await authorizeProject(ctx, scope, 'assets', 'update');
    return this.service.update(ctx.em, scope, id, input, user.userId);
  }

  @Mutation(() => Asset, { description: 'Soft-deletes an asset: status `deleted`, no longer served by the CDN.' })
  async deleteAsset(
    @Args() scope: ProjectScopeArgs,
    @Arg('id', () => ID, { description: 'The asset.' }) id: string,
    @Ctx() ctx: Context,
  ) {
    const user = await authorizeProject(ctx, scope, 'assets', 'delete');
    return this.service.delete(ctx.em, scope, id, user.userId);
  }

  @FieldResolver(() => String, { description: 'Delivery address on the CDN path.' })
  url(@Root() asset: Asset): string {
    return assetUrl(this.cdnUrl, asset);
  }

  @FieldResolver(() => UserReference, { description: 'The user who uploaded the asset.' })
  createdBy(@Root('createdById') createdById: string): UserReference {
    return userRef(createdById);
  }
}
