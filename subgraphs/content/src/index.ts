// Public surface of the content subgraph for the gateway and the standalone service.
export { buildContentSubgraph, contentDatabase, contentEmbedder, contentModule, createContentModule } from './subgraph';
export { sign as signWebhook, verify as verifyWebhookSignature } from './webhook/signature';
export { contentRoutes } from './routes';
export { createContentTransfer } from './transfer';
export { TypedGraphQL, type TypedAnswer, type TypedRequest } from './typed/typed-graphql';
