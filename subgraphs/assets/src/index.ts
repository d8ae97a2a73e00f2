// Public surface of the assets subgraph for the gateway and the standalone service.
export { assetsDatabase, assetsModule, buildAssetsSubgraph, createAssetService } from './subgraph';
export { assetRoutes } from './routes';
export { cdnHandler, uploadHandler } from './asset/asset.http';
export { createAssetsTransfer } from './transfer';
