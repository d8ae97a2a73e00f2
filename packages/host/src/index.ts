// The runtime every HTTP process of the platform runs in (the gateway, a standalone subgraph service), and the
// module contract of the subgraphs it hosts.
export * from './host';
export * from './health';
export * from './module';
export * from './openapi-parameters';
export * from './stages';
