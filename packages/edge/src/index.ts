// What every HTTP process of the platform shares at its edge: readiness, graceful shutdown, open streams, metrics,
// URL checks and Idempotency-Key (D17).
export * from './readiness';
export * from './http-drain';
export * from './live-streams';
export * from './shutdown';
export * from './runtime-metrics';
export * from './rate-limit';
export * from './retry-after';
export * from './parsed-request';
export * from './url-guard';
export * from './idempotency';
