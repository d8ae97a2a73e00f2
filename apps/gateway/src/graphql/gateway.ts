// @apollo/gateway over the committed supergraph: subgraphs in-process by default, remote over keep-alive HTTP when configured.
import {
  ApolloGateway,
  RemoteGraphQLDataSource,
  type Experimental_DidResolveQueryPlanCallback,
  type GraphQLDataSource,
} from '@apollo/gateway';
import type { SubgraphName } from '@cp/config';
import { currentIdempotencyKey } from '@cp/edge';
import { PRINCIPAL_HEADER, signPrincipal, type Context } from '@cp/graphql';
import { context as otelContext, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { GraphQLSchema } from 'graphql';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SCHEMA_DIR } from '@cp/supergraph';
import { CachedLocalDataSource } from './local-data-source';

export function readSupergraph(): string {
  return readFileSync(join(SCHEMA_DIR, 'supergraph.graphql'), 'utf8');
}

export interface GatewayOptions {
  supergraphSdl: string;
  /** Subgraphs served in this process, by name. */
  local: Partial<Record<SubgraphName, GraphQLSchema>>;
  /** Subgraphs served elsewhere, by name. */
  remote: Partial<Record<SubgraphName, string>>;
  /** SUBGRAPH_SECRET: signs the principal forwarded to remote subgraphs (required when there are any). */
  subgraphSecret?: Uint8Array;
  /** Sees every query plan the gateway uses (direct-execution.ts). */
  didResolveQueryPlan?: Experimental_DidResolveQueryPlanCallback;
}

// A no-op until `@cp/tracing` registers a provider (only with OTEL_EXPORTER_OTLP_ENDPOINT set).
const tracer = trace.getTracer('@cp/gateway');

type ProcessOptions = Parameters<RemoteGraphQLDataSource<Context>['process']>[0];

class ForwardingDataSource extends RemoteGraphQLDataSource<Context> {
  constructor(
    private readonly name: string,
    url: string,
    private readonly secret: Uint8Array,
  ) {
    // Node's fetch (undici) keeps connections alive across requests.
    super({ url, fetcher: fetch as never });
  }

  /** One client span per subgraph request, under @apollo/gateway's own `gateway.fetch` span. */
  override process(options: ProcessOptions) {
    const attributes = {
      'cp.subgraph': this.name,
      'url.full': this.url,
      'http.request.method': 'POST',
      'graphql.operation.name': options.request.operationName ?? '',
    };
    return tracer.startActiveSpan(`subgraph ${this.name}`, { kind: SpanKind.CLIENT, attributes }, async (span) => {
      try {
        const response = await super.process(options);
        if (response.errors?.length) span.setAttribute('graphql.error.count', response.errors.length);
        return response;
      } catch (err) {
        span.recordException(err as Error);
        span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
        throw err;
      } finally {
        span.end();
      }
    });
  }

  override async willSendRequest({
    request,
    context,
  }: Parameters<NonNullable<RemoteGraphQLDataSource<Context>['willSendRequest']>>[0]) {
    const headers = request.http?.headers;
    if (!headers) return;
    // W3C `traceparent`/`tracestate` of the span above: the subgraph service's server span continues this trace.
    propagation.inject(otelContext.active(), headers, { set: (carrier, key, value) => carrier.set(key, value) });
    if (!context.principal) return;
    headers.set(
      PRINCIPAL_HEADER,
      await signPrincipal(context.principal, this.secret, {
        subgraph: this.name,
        requestId: context.requestId,
        idempotencyKey: currentIdempotencyKey(),
      }),
    );
    headers.set('x-request-id', context.requestId);
    headers.set('accept-language', context.lang);
  }
}

export function createGateway(options: GatewayOptions): ApolloGateway {
  // @apollo/gateway sends anonymous usage data to Apollo unless this is set, and reads it only from the environment, at
  // construction. A self-hosted service doesn't phone home by default; an operator opts in with `=false`.
  process.env.APOLLO_TELEMETRY_DISABLED ??= 'true';
  return new ApolloGateway({
    supergraphSdl: options.supergraphSdl,
    experimental_didResolveQueryPlan: options.didResolveQueryPlan,
    // Outside NODE_ENV=production the gateway would add its query plan to any answer whose request asks for it
    // (`Apollo-Query-Plan-Experimental`): internals for any caller, and answers the read cache could keep.
    __exposeQueryPlanExperimental: false,
    buildService({ name, url }): GraphQLDataSource {
      const local = options.local[name as SubgraphName];
      if (local) return new CachedLocalDataSource(local);
      const remote = options.remote[name as SubgraphName] ?? url;
      if (!remote) throw new Error(`Subgraph ${name} has neither a local schema nor a URL.`);
      if (!options.subgraphSecret) throw new Error(`Subgraph ${name} is remote: SUBGRAPH_SECRET is required.`);
      return new ForwardingDataSource(name, remote, options.subgraphSecret);
    },
  });
}
