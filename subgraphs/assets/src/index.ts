// Public surface of the assets subgraph for the gateway and the standalone service.
export { assetsDatabase, buildAssetsSubgraph } from './subgraph';
export { assetRoutes } from './routes';
