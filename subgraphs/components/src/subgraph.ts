// The components subgraph: components (compiled and sandboxed), their versions and files, and packages.
import type { Config } from '@cp/config';
import type { DatabaseModule } from '@cp/db';
import { buildFederatedSchema, type BuiltSubgraph } from '@cp/graphql';
import type { SubgraphModule } from '@cp/host';
import { componentAssetCdnHandler, componentAssetUploadHandler } from './component-asset/component-asset.http';
import { componentRoutes } from './routes';
import { createComponentsTransfer } from './transfer';
import { LocalFileStorage } from '@cp/storage';
import { join } from 'node:path';
import { ComponentAsset } from './component-asset/component-asset.entity';
import { ComponentAssetResolver } from './component-asset/component-asset.resolver';
import { ComponentAssetService } from './component-asset/component-asset.service';
import { ComponentVersion } from './component/component-version.entity';
import { Component } from './component/component.entity';
import { ComponentResolver, ComponentVersionResolver } from './component/component.resolver';
import { componentMigrations } from './migrations';
import { Package } from './package/package.entity';
import { PackageResolver, ResolvedPackageResolver } from './package/package.resolver';

export const componentsDatabase: DatabaseModule = {
  name: 'components',
  entities: [Component, ComponentVersion, ComponentAsset, Package],
  migrations: componentMigrations,
};

export function createComponentAssetService(config: Pick<Config, 'database' | 'uploads'>): ComponentAssetService {
  return new ComponentAssetService(
    new LocalFileStorage(join(config.database.dataDir, 'assets')),
    config.uploads.maxBytes,
  );
}

export function buildComponentsSubgraph(config: Pick<Config, 'http' | 'database' | 'uploads'>): Promise<BuiltSubgraph> {
  return buildFederatedSchema({
    name: 'components',
    resolvers: [
      ComponentResolver,
      ComponentVersionResolver,
      ComponentAssetResolver,
      PackageResolver,
      ResolvedPackageResolver,
    ],
    instances: [new ComponentAssetResolver(createComponentAssetService(config), config.http.cdnUrl)],
  });
}

/** The components subgraph as its hosts run it: component asset upload and delivery are plain HTTP (D8). */
export const componentsModule: SubgraphModule = {
  name: 'components',
  database: componentsDatabase,
  routes: componentRoutes,
  build: ({ config }) => buildComponentsSubgraph(config),
  transfer: ({ config }) => createComponentsTransfer(config),
  http({ config, orm }) {
    const assets = createComponentAssetService(config);
    return [
      {
        method: 'post',
        family: 'app',
        path: '/app/v1/organizations/:organizationId/projects/:projectId/components/:componentId/assets',
        handler: componentAssetUploadHandler(assets, config.http.cdnUrl),
      },
      {
        method: 'get',
        path: '/cdn/:organizationId/:projectId/component-assets/:assetId/:filename',
        handler: componentAssetCdnHandler(orm, assets),
      },
    ];
  },
};
