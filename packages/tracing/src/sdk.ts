// The OpenTelemetry SDK: node tracer provider, OTLP/HTTP exporter, and the http, graphql and pg instrumentations.
import { diag, DiagLogLevel, SpanKind } from '@opentelemetry/api';
import type { Logger } from '@cp/config';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { GraphQLInstrumentation } from '@opentelemetry/instrumentation-graphql';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, ParentBasedSampler, SamplingDecision, type Sampler } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { Tracing } from './index';

/** Probes and scrapes would be most spans and tell nothing. */
const UNTRACED_PATHS = new Set(['/health', '/ready', '/metrics']);

/**
 * A trace starts only at an incoming request (a server span); below it everything is kept. Start-up work (schema
 * parsing), background loops and library internals would otherwise each open a trace of their own.
 */
const requestsOnly: Sampler = {
  shouldSample: (_context, _traceId, _name, kind) => ({
    decision: kind === SpanKind.SERVER ? SamplingDecision.RECORD_AND_SAMPLED : SamplingDecision.NOT_RECORD,
  }),
  toString: () => 'RequestsOnly',
};

export interface SdkOptions {
  /** The collector's base URL; spans go to `<endpoint>/v1/traces`. */
  endpoint: string;
  serviceName: string;
  logger: Logger;
}

export function start(options: SdkOptions): Tracing {
  // Export failures (collector down, refused) would otherwise vanish: OpenTelemetry reports them through `diag`.
  diag.setLogger(
    {
      error: (message, ...args) => options.logger.warn({ args }, message),
      warn: (message, ...args) => options.logger.warn({ args }, message),
      info: () => {},
      debug: () => {},
      verbose: () => {},
    },
    DiagLogLevel.WARN,
  );
  // OTLP/HTTP with JSON bodies (this exporter package's encoding); every OTLP collector accepts it on :4318.
  const exporter = new OTLPTraceExporter({ url: `${options.endpoint}/v1/traces` });
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: options.serviceName }),
    // An incoming `traceparent` decides for its request (sampled upstream → kept), as W3C trace context intends.
    sampler: new ParentBasedSampler({ root: requestsOnly }),
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  // Global provider, AsyncLocalStorage context and the W3C `traceparent`/`tracestate` (+ baggage) propagator.
  provider.register();
  const unregister = registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      // Server spans for every request (continuing an incoming `traceparent`: how a subgraph service joins the
      // gateway's trace). Outgoing `http` requests only inside a trace: background loops would start a root each.
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (req) => UNTRACED_PATHS.has((req.url ?? '').split('?')[0]),
        requireParentforOutgoingSpans: true,
      }),
      // parse, validate and execute; no span per resolver (hundreds per list query, and most of the cost).
      new GraphQLInstrumentation({ ignoreResolveSpans: true, mergeItems: true }),
      // Queries inside a request only: the workers' polls (events, schedules, webhooks) would be a trace a second.
      new PgInstrumentation({ requireParentSpan: true }),
    ],
  });
  options.logger.info({ endpoint: options.endpoint, serviceName: options.serviceName }, 'tracing to OTLP endpoint');
  return {
    enabled: true,
    async shutdown(timeoutMs = 2000) {
      unregister();
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs).unref()));
      await Promise.race([
        provider.shutdown().catch((err) => options.logger.warn({ err }, 'tracing shutdown failed')),
        late,
      ]);
      clearTimeout(timer);
    },
  };
}
