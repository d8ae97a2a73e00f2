// The four subgraphs this gateway composes, as their module objects (schema, database, routes, HTTP, workers).
import { DEFAULT_SUBGRAPH_PORTS, type SubgraphName } from '@cp/config';
import type { RestRoutes } from '@cp/graphql';
import { accessModule } from '@cp/subgraph-access';
import { assetsModule } from '@cp/subgraph-assets';
import { componentsModule } from '@cp/subgraph-components';
import { contentModule } from '@cp/subgraph-content';
import type { SubgraphModule } from '@cp/subgraph-server';
import { join } from 'node:path';

export type { SubgraphModule } from '@cp/subgraph-server';

export const SUBGRAPHS: SubgraphModule[] = [accessModule, contentModule, componentsModule, assetsModule];

/** The embedded database's initial data: every migration applied, written by the build (build-initial-data.ts). */
export const INITIAL_DATA = join(__dirname, 'initial-pgdata.tar.gz');

export const defaultSubgraphUrl = (name: SubgraphName) => `http://127.0.0.1:${DEFAULT_SUBGRAPH_PORTS[name]}/graphql`;

export function allRoutes(): RestRoutes {
  return Object.assign({}, ...SUBGRAPHS.map((s) => s.routes));
}
