// Public surface of the gateway app for tests and benchmarks.
export { startService, type RunningService } from './app';
export { composeFromCode, SCHEMA_DIR, writeComposedSchemas } from './compose';
export { INITIAL_DATA, SUBGRAPHS, defaultSubgraphUrl } from './subgraphs';
export { allRoutes } from './subgraphs';
export { PLAIN_ROUTES, type PlainRoute } from './plain-routes';
export { openApiPath } from './openapi/document';
export { BASE_PATHS } from './rest';
