// The four subgraphs this gateway composes, as their module objects (schema, database, routes, HTTP, workers).
import { DEFAULT_SUBGRAPH_PORTS, type SubgraphName } from '@cp/config';
import type { RestRoutes } from '@cp/graphql';
import { accessModule } from '@cp/subgraph-access';
import { assetsModule } from '@cp/subgraph-assets';
import { componentsModule } from '@cp/subgraph-components';
import { contentModule } from '@cp/subgraph-content';
import type { SubgraphModule } from '@cp/subgraph-server';

export type { SubgraphModule } from '@cp/subgraph-server';

export const SUBGRAPHS: SubgraphModule[] = [accessModule, contentModule, componentsModule, assetsModule];

export const defaultSubgraphUrl = (name: SubgraphName) => `http://127.0.0.1:${DEFAULT_SUBGRAPH_PORTS[name]}/graphql`;

export function allRoutes(): RestRoutes {
  return Object.assign({}, ...SUBGRAPHS.map((s) => s.routes));
}
