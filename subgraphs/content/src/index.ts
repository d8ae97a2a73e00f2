// Public surface of the content subgraph for the gateway and the standalone service.
export { buildContentSubgraph, contentDatabase, contentModule, createEmbeddingIndexer, createWebhookWorker } from './subgraph';
export { sign as signWebhook, verify as verifyWebhookSignature } from './webhook/signature';
export { contentRoutes } from './routes';
export { createContentTransfer } from './transfer';
