// Prometheus metrics for every process of the platform: one registry, helpers to add metrics, the /metrics endpoint.
export * from './registry';
export * from './http';
export { Counter, Gauge, Histogram } from 'prom-client';
