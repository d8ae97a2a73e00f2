// The components subgraph: components (compiled and sandboxed), their versions and files, and packages.
import type { Config } from '@cp/config';
import type { DatabaseModule } from '@cp/db';
import { buildFederatedSchema, type BuiltSubgraph } from '@cp/graphql';
import type { SubgraphModule } from '@cp/host';
import { componentAssetHttpRoutes } from './component-asset/component-asset.http-routes';
import { createComponentAssetService } from './component-asset/component-asset.factory';
import { componentRoutes } from './routes';
import { createComponentsTransfer } from './transfer';
import { ComponentAsset } from './component-asset/component-asset.entity';
import { ComponentAssetResolver } from './component-asset/component-asset.resolver';
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

export { createComponentAssetService };

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

/** The components subgraph as its hosts run it: component asset upload and delivery are HTTP routes. */
export const componentsModule: SubgraphModule = {
  name: 'components',
  database: componentsDatabase,
  routes: componentRoutes,
  build: ({ config }) => buildComponentsSubgraph(config),
  transfer: ({ config }) => createComponentsTransfer(config),
  httpRoutes: componentAssetHttpRoutes,
};
