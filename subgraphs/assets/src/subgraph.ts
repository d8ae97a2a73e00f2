// The assets subgraph: files, their metadata, CDN addresses, upload and delivery.
import type { Config } from '@cp/config';
import type { DatabaseModule } from '@cp/db';
import { buildFederatedSchema, type BuiltSubgraph } from '@cp/graphql';
import type { SubgraphModule } from '@cp/host';
import { cdnHandler, uploadHandler } from './asset/asset.http';
import { assetRoutes } from './routes';
import { createAssetsTransfer } from './transfer';
import { join } from 'node:path';
import { Asset } from './asset/asset.entity';
import { AssetResolver } from './asset/asset.resolver';
import { AssetService } from './asset/asset.service';
import { ImageVariants, LocalFileStorage } from '@cp/storage';
import { assetMigrations } from './migrations';

export const assetsDatabase: DatabaseModule = {
  name: 'assets',
  entities: [Asset],
  migrations: assetMigrations,
};

export function createAssetService(config: Pick<Config, 'database' | 'uploads'>): AssetService {
  return new AssetService(new LocalFileStorage(join(config.database.dataDir, 'assets')), config.uploads.maxBytes);
}

export function buildAssetsSubgraph(config: Pick<Config, 'http' | 'database' | 'uploads'>): Promise<BuiltSubgraph> {
  return buildFederatedSchema({
    name: 'assets',
    resolvers: [AssetResolver],
    instances: [new AssetResolver(createAssetService(config), config.http.cdnUrl)],
  });
}

/** The assets subgraph as its hosts run it: multipart upload and CDN delivery are plain HTTP (D8). */
export const assetsModule: SubgraphModule = {
  name: 'assets',
  database: assetsDatabase,
  routes: assetRoutes,
  build: ({ config }) => buildAssetsSubgraph(config),
  transfer: ({ config }) => createAssetsTransfer(config),
  http({ config, orm }) {
    const assets = createAssetService(config);
    // One per process: the single-flight map and the work queue bound this process's transformations.
    const images = new ImageVariants(assets.storage, config.images);
    return [
      {
        method: 'post',
        family: 'app',
        path: '/app/v1/organizations/:organizationId/projects/:projectId/assets',
        handler: uploadHandler(assets, config.http.cdnUrl),
      },
      {
        method: 'get',
        path: '/cdn/:organizationId/:projectId/assets/:assetId/:filename',
        handler: cdnHandler(orm, assets, images),
      },
    ];
  },
};
