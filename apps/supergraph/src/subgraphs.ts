// The four subgraphs the platform composes, as their module objects (schema, database, routes, HTTP, workers).
import { DEFAULT_SUBGRAPH_PORTS, type SubgraphName } from '@cp/config';
import type { RestApi, RestRoutes } from '@cp/graphql';
import type { SubgraphModule } from '@cp/host';
import { accessModule } from '@cp/subgraph-access';
import { assetsModule } from '@cp/subgraph-assets';
import { componentsModule } from '@cp/subgraph-components';
import { contentModule, createContentModule } from '@cp/subgraph-content';
import { join } from 'node:path';

/** Fresh module instances for one running service (the content module holds its embedding model). */
export function subgraphModules(): SubgraphModule[] {
  return [accessModule, createContentModule(), componentsModule, assetsModule];
}

/** For what needs no running module: composition, REST routes, the database's tables. */
export const SUBGRAPHS: SubgraphModule[] = [accessModule, contentModule, componentsModule, assetsModule];

/** The embedded database's initial data: every migration applied, written by the build (build-initial-data.ts). */
export const INITIAL_DATA = join(__dirname, 'initial-pgdata.tar.gz');

export const defaultSubgraphUrl = (name: SubgraphName) => `http://127.0.0.1:${DEFAULT_SUBGRAPH_PORTS[name]}/graphql`;

export function allRoutes(): RestRoutes {
  return Object.assign({}, ...SUBGRAPHS.map((s) => s.routes));
}

/** Every module's REST routes and shapes (reference types, exceptions, GraphQL-only fields), as REST takes them. */
export function restApi(): RestApi {
  const shapes = SUBGRAPHS.map((s) => s.restShape ?? {});
  return {
    routes: allRoutes(),
    shape: {
      models: shapes.flatMap((s) => s.models ?? []),
      ignore: shapes.flatMap((s) => s.ignore ?? []),
      graphqlOnly: shapes.flatMap((s) => s.graphqlOnly ?? []),
    },
  };
}
