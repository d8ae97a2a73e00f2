// OpenTelemetry for every process: loads the SDK and its instrumentations only when OTEL_EXPORTER_OTLP_ENDPOINT is set.
import { ConfigError, createLogger, loadConfig, type Config } from '@cp/config';

/** What an entry point keeps: shut it down after the service closed, so the last spans are exported. */
export interface Tracing {
  enabled: boolean;
  /** Flushes queued spans and stops the exporter; resolves within `timeoutMs` even when the collector is gone. */
  shutdown(timeoutMs?: number): Promise<void>;
}

const DISABLED: Tracing = { enabled: false, shutdown: async () => {} };

/**
 * Starts tracing for the process named `serviceName` (`OTEL_SERVICE_NAME` overrides it). Call it before anything that
 * loads `http`, `express`, `graphql` or `pg`: the instrumentations patch those modules as they are required. With
 * no endpoint nothing of the SDK is loaded (`@opentelemetry/api`, which the code calls, then stays a no-op).
 * Without `config`, reads it; an invalid configuration leaves tracing off (the service's own start reports it).
 */
export function startTracing(serviceName: string, config?: Pick<Config, 'tracing' | 'logLevel'>): Tracing {
  if (!config) {
    try {
      config = loadConfig();
    } catch (err) {
      if (err instanceof ConfigError) return DISABLED;
      throw err;
    }
  }
  const { endpoint, serviceName: override } = config.tracing;
  if (!endpoint) return DISABLED;
  // A plain require on purpose: this is the only place the SDK is loaded, and only here, synchronously, before the rest.
  const sdk = require('./sdk') as typeof import('./sdk');
  return sdk.start({ endpoint, serviceName: override ?? serviceName, logger: createLogger(config, 'tracing') });
}
