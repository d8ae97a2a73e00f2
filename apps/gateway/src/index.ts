// Public surface of the gateway app for tests and benchmarks.
export { startService, type RunningService } from './app';
export { composeFromCode, SCHEMA_DIR } from './compose';
export { SUBGRAPHS, defaultSubgraphUrl } from './subgraphs';
