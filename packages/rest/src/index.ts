// REST derived from the GraphQL API: each module's declared routes run the operation sofa builds for their root field,
// answered in the platform's shapes (references as ids, `include`, `select`), and described by OpenAPI documents.
export * from './routes';
export * from './rest-handler';
export * from './rest-operations';
export * from './body-types';
export * from './query-parameters';
export * from './includes';
export * from './openapi/document';
