// The platform's four subgraph modules and their composition: what the gateway and the CLI both build on.
export { composeFromCode, SCHEMA_DIR, writeComposedSchemas, type ComposedSchemas } from './compose';
export { allRoutes, defaultSubgraphUrl, INITIAL_DATA, restApi, subgraphModules, SUBGRAPHS } from './subgraphs';
