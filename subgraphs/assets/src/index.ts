// Public surface of the assets subgraph for the gateway and the standalone service.
export { assetsDatabase, buildAssetsSubgraph, createAssetService } from './subgraph';
export { assetRoutes } from './routes';
export { cdnHandler, uploadHandler } from './asset/asset.http';
