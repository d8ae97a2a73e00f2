// The four subgraphs the platform composes, as their module objects (schema, database, routes, HTTP, workers).
import { DEFAULT_SUBGRAPH_PORTS, type SubgraphName } from '@cp/config';
import type { RestRoutes } from '@cp/graphql';
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

/** Root fields anyone may call without a credential: those whose module marks their routes `public`. */
export const PUBLIC_FIELDS: ReadonlySet<string> = new Set(
  Object.entries(allRoutes())
    .filter(([, byFamily]) => Object.values(byFamily).some((route) => route?.public))
    .map(([field]) => field),
);
/** Every module's REST reference types and exceptions (`RestShape`), as sofa takes them. */
export const SOFA_MODELS: string[] = SUBGRAPHS.flatMap((s) => s.restShape?.models ?? []);
export const SOFA_IGNORE: string[] = SUBGRAPHS.flatMap((s) => s.restShape?.ignore ?? []);
/** Object fields REST never selects (GraphQL answers them only). */
export const GRAPHQL_ONLY_FIELDS: ReadonlySet<string> = new Set(
  SUBGRAPHS.flatMap((s) => s.restShape?.graphqlOnly ?? []),
);
