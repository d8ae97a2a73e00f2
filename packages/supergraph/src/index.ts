// The platform's four subgraph modules and their composition: what the gateway and the CLI both build on.
export { composeFromCode, SCHEMA_DIR, writeComposedSchemas, type ComposedSchemas } from './compose';
export {
  allRoutes,
  defaultSubgraphUrl,
  INITIAL_DATA,
  PUBLIC_FIELDS,
  SOFA_IGNORE,
  SOFA_MODELS,
  subgraphModules,
  SUBGRAPHS,
} from './subgraphs';
// The live-event transports every host shares (graphql-ws server, SSE queue): the gateway takes them from here, as it
// takes the modules, and names no `@cp/subgraph-*` package itself.
export { buildSubscriptionSchema, liveEvents, MAX_BUFFERED_BYTES, startSubscriptionServer } from '@cp/subgraph-server';
