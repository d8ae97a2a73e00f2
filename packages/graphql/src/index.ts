// Shared GraphQL building blocks for every subgraph: schema builder, context, principal, guards, pagination.
export * from './build-subgraph';
export * from './principal';
export * from './context';
export * from './authorize';
export * from './pagination';
export * from './principal-header';
export * from './scalars';
export * from './rest-routes';
export * from './request-loader';
export * from './entity-status';
export * from './user-reference';
export * from './lifecycle';
export * from './version-fields';
export * from './names';
export * from './revision';
export * from './selection';
export * from './event-since';
