// What every HTTP process of the platform shares at its edge: readiness, graceful shutdown, open streams, metrics,
// URL and JSON checks, the API family rule, Idempotency-Key, the request scope and the error writer (error envelopes,
// early refusals, the failure log).
export * from './readiness';
export * from './http-drain';
export * from './live-streams';
export * from './shutdown';
export * from './runtime-metrics';
export * from './rate-limit';
export * from './head-rules';
export * from './parsed-request';
export * from './url-guard';
export * from './idempotency';
export * from './lingering-close';
export * from './failure-log';
export * from './error-writer';
export * from './request-id';
export * from './family-guard';
export * from './parser-refusals';
export * from './request-body';
export * from './response-seam';
export * from './conditional';
export * from './request-scope';
export * from './scoped-errors';
export * from './json-guard';
