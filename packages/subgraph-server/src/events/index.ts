// Live events for every host: the bounded per-subscriber queue and the graphql-ws server (re-checks: `@cp/auth`).
export * from './fan-out';
export * from './frames';
export * from './live-queue';
export * from './subscription-server';
