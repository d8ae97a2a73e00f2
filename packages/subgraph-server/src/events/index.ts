// Live events for every host: the bounded per-subscriber queue, the access re-checks, the graphql-ws server.
export * from './access-watch';
export * from './fan-out';
export * from './frames';
export * from './live-queue';
export * from './subscription-server';
