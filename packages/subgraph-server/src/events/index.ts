// Live events for every host: the bounded per-subscriber queue, the graphql-ws server (re-checks: `@cp/auth`), and the
// event routes (REST pages and SSE).
export * from './fan-out';
export * from './frames';
export * from './live-queue';
export * from './subscription-server';
export * from './event-http-routes';
