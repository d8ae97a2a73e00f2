// What every HTTP process of the platform shares at its edge: readiness, graceful shutdown, open streams, metrics.
export * from './readiness';
export * from './http-drain';
export * from './live-streams';
export * from './shutdown';
export * from './runtime-metrics';
export * from './rate-limit';
export * from './retry-after';
