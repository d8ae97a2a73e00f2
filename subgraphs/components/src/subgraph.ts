// The components subgraph: components (and, later, packages and component assets).
import type { DatabaseModule } from '@cp/db';
import { buildFederatedSchema, type BuiltSubgraph } from '@cp/graphql';
import { Component } from './component/component.entity';
import { ComponentResolver } from './component/component.resolver';
import { componentMigrations } from './migrations';

export const componentsDatabase: DatabaseModule = {
  name: 'components',
  entities: [Component],
  migrations: componentMigrations,
};

export function buildComponentsSubgraph(): Promise<BuiltSubgraph> {
  return buildFederatedSchema({ name: 'components', resolvers: [ComponentResolver] });
}
