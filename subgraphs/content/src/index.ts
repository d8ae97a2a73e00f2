// Public surface of the content subgraph for the gateway and the standalone service.
export { buildContentSubgraph, contentDatabase } from './subgraph';
export { contentRoutes } from './routes';
