// The components subgraph: components (compiled and sandboxed), their versions, and packages.
import type { DatabaseModule } from '@cp/db';
import { buildFederatedSchema, type BuiltSubgraph } from '@cp/graphql';
import { ComponentVersion } from './component/component-version.entity';
import { Component } from './component/component.entity';
import { ComponentResolver, ComponentVersionResolver } from './component/component.resolver';
import { componentMigrations } from './migrations';
import { Package } from './package/package.entity';
import { PackageResolver, ResolvedPackageResolver } from './package/package.resolver';

export const componentsDatabase: DatabaseModule = {
  name: 'components',
  entities: [Component, ComponentVersion, Package],
  migrations: componentMigrations,
};

export function buildComponentsSubgraph(): Promise<BuiltSubgraph> {
  return buildFederatedSchema({
    name: 'components',
    resolvers: [ComponentResolver, ComponentVersionResolver, PackageResolver, ResolvedPackageResolver],
  });
}
