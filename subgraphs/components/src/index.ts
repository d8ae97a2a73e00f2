// Public surface of the components subgraph for the gateway and the standalone service.
export { buildComponentsSubgraph, componentsDatabase, componentsModule, createComponentAssetService } from './subgraph';
export { componentAssetCdnHandler, componentAssetUploadHandler } from './component-asset/component-asset.http';
export { componentRoutes } from './routes';
export { createComponentsTransfer } from './transfer';
