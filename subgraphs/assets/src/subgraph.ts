// The assets subgraph: files, their metadata and CDN addresses.
import type { Config } from '@cp/config';
import type { DatabaseModule } from '@cp/db';
import { buildFederatedSchema, type BuiltSubgraph } from '@cp/graphql';
import { Asset } from './asset/asset.entity';
import { AssetResolver } from './asset/asset.resolver';
import { assetMigrations } from './migrations';

export const assetsDatabase: DatabaseModule = {
  name: 'assets',
  entities: [Asset],
  migrations: assetMigrations,
};

export function buildAssetsSubgraph(config: Pick<Config, 'http'>): Promise<BuiltSubgraph> {
  return buildFederatedSchema({
    name: 'assets',
    resolvers: [AssetResolver],
    instances: [new AssetResolver(config.http.cdnUrl)],
  });
}
