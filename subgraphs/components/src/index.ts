// Public surface of the components subgraph for the gateway and the standalone service.
export { buildComponentsSubgraph, componentsDatabase } from './subgraph';
export { componentRoutes } from './routes';
