// The assets subgraph: files, their metadata, CDN addresses, upload and delivery.
import type { Config } from '@cp/config';
import type { DatabaseModule } from '@cp/db';
import { buildFederatedSchema, type BuiltSubgraph, type Context } from '@cp/graphql';
import type { SubgraphModule } from '@cp/host';
import { assetHttpRoutes } from './asset/asset.http-routes';
import { createAssetService } from './asset/asset.factory';
import { assetRoutes } from './routes';
import { createAssetsTransfer } from './transfer';
import { Asset } from './asset/asset.entity';
import { AssetResolver } from './asset/asset.resolver';
import { resolveAssetReference } from './asset/asset.reference';
import { assetMigrations } from './migrations';

export const assetsDatabase: DatabaseModule = {
  name: 'assets',
  entities: [Asset],
  migrations: assetMigrations,
};

export { createAssetService };

export function buildAssetsSubgraph(config: Pick<Config, 'http' | 'database' | 'uploads'>): Promise<BuiltSubgraph> {
  return buildFederatedSchema({
    name: 'assets',
    resolvers: [AssetResolver],
    instances: [new AssetResolver(createAssetService(config), config.http.cdnUrl)],
    referenceResolvers: {
      Asset: { __resolveReference: (ref: { id: string }, ctx: Context) => resolveAssetReference(ref, ctx) },
    },
  });
}

/** The assets subgraph as its hosts run it: multipart upload and CDN delivery are HTTP routes. */
export const assetsModule: SubgraphModule = {
  name: 'assets',
  database: assetsDatabase,
  routes: assetRoutes,
  build: ({ config }) => buildAssetsSubgraph(config),
  transfer: ({ config }) => createAssetsTransfer(config),
  httpRoutes: assetHttpRoutes,
};
