// The four subgraphs this gateway composes: how to build each one, its database module and its REST routes.
import { DEFAULT_SUBGRAPH_PORTS, type Config, type SubgraphName } from '@cp/config';
import type { DatabaseModule } from '@cp/db';
import type { BuiltSubgraph, RestRoutes } from '@cp/graphql';
import { accessDatabase, accessRoutes, buildAccessSubgraph, type AuthService } from '@cp/subgraph-access';
import { assetRoutes, assetsDatabase, buildAssetsSubgraph } from '@cp/subgraph-assets';
import { buildComponentsSubgraph, componentRoutes, componentsDatabase } from '@cp/subgraph-components';
import { buildContentSubgraph, contentDatabase, contentRoutes } from '@cp/subgraph-content';

export interface SubgraphDeps {
  config: Config;
  auth: AuthService;
}

export interface SubgraphModule {
  name: SubgraphName;
  database: DatabaseModule;
  routes: RestRoutes;
  build(deps: SubgraphDeps): Promise<BuiltSubgraph>;
}

export const SUBGRAPHS: SubgraphModule[] = [
  { name: 'access', database: accessDatabase, routes: accessRoutes, build: ({ auth }) => buildAccessSubgraph(auth) },
  { name: 'content', database: contentDatabase, routes: contentRoutes, build: ({ config }) => buildContentSubgraph(config) },
  { name: 'components', database: componentsDatabase, routes: componentRoutes, build: ({ config }) => buildComponentsSubgraph(config) },
  { name: 'assets', database: assetsDatabase, routes: assetRoutes, build: ({ config }) => buildAssetsSubgraph(config) },
];

export const defaultSubgraphUrl = (name: SubgraphName) => `http://127.0.0.1:${DEFAULT_SUBGRAPH_PORTS[name]}/graphql`;

export function allRoutes(): RestRoutes {
  return Object.assign({}, ...SUBGRAPHS.map((s) => s.routes));
}
