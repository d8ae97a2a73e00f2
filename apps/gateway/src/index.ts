// Public surface of the gateway app for tests and benchmarks.
export { startService, type RunningService } from './app';
export {
  allRoutes,
  composeFromCode,
  defaultSubgraphUrl,
  INITIAL_DATA,
  SCHEMA_DIR,
  SUBGRAPHS,
  writeComposedSchemas,
} from '@cp/supergraph';
export { gatewayHttpRoutes } from './rest/http-routes';
export { BASE_PATHS, documentFamily, openApiPath } from '@cp/rest';
