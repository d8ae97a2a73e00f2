// Black-box: one query across two remote subgraph services is one OpenTelemetry trace (gateway → subgraphs → database).
//
// No in-memory exporter: the exporter is the real one (OTLP/HTTP, what operators run) and
// the "memory" is a small OTLP receiver inside this test process (`support/otlp-receiver.ts`): the gateway and both
// subgraph services are separate processes, so only spans that really left them, with the trace context that
// really crossed the wire, can pass.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, PROJECT } from './support/client';
import { SPAN_KIND, startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from './support/otlp-receiver';
import { ROOT, type TestService } from './support/service';
import { startStandaloneStack, type StandaloneStack } from './support/standalone';

describe('tracing (OTEL_EXPORTER_OTLP_ENDPOINT)', () => {
  let stack: StandaloneStack;
  let gateway: TestService;
  let receiver: OtlpReceiver;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    // components and assets stay in-process: the trace below must still name exactly the two remote services.
    stack = await startStandaloneStack({
      subgraphs: ['access', 'content'],
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url },
    });
    ({ gateway } = stack);
  });
  afterAll(async () => {
    await stack?.stop();
    await receiver?.close();
  });

  it('gives a query that spans two remote subgraphs one trace, with consistent parent links', async () => {
    const api = new Client(gateway.url);
    const token = await api.login();
    const created = await api.call('POST', `/app/v1${PROJECT}/content-types`, {
      token,
      body: { name: 'Traced', schema: { type: 'object' } },
    });
    expect(created.status).toBe(201);

    // The client's own trace context: the edge continues it, so the test knows which trace is the query's.
    const traceId = randomBytes(16).toString('hex');
    const clientSpanId = randomBytes(8).toString('hex');
    const res = await api.graphql(
      `query Traced($id: ID!) { contentType(organizationId: "default", projectId: "default", id: $id) { name createdBy { email } } }`,
      { id: created.body.id },
      { token, headers: { traceparent: `00-${traceId}-${clientSpanId}-01` } },
    );
    expect(res.body).toEqual({ data: { contentType: { name: 'Traced', createdBy: { email: 'admin@example.com' } } } });

    // A graceful stop flushes what the batch processors still hold (the export on shutdown is part of the contract).
    const services = Object.values(stack.services);
    await gateway.stop();
    await Promise.all(services.map((s) => s.stop()));
    expect([gateway, ...services].map((p) => p.child.exitCode)).toEqual([0, 0, 0]);

    const spans = receiver.spans.filter((s) => s.traceId === traceId);
    const describeSpans = () => spans.map((s) => `${s.service} ${s.name} ${s.spanId}<-${s.parentSpanId}`).join('\n');
    expect(new Set(spans.map((s) => s.service)), describeSpans()).toEqual(
      new Set(['gateway', 'subgraph-content', 'subgraph-access']),
    );

    // One tree: the gateway's server span hangs off the client's span, every other span off a span of this trace.
    const ids = new Set(spans.map((s) => s.spanId));
    expect(ids.size).toBe(spans.length);
    const roots = spans.filter((s) => !ids.has(s.parentSpanId ?? ''));
    expect(
      roots.map((s) => [s.service, s.kind, s.parentSpanId]),
      describeSpans(),
    ).toEqual([['gateway', SPAN_KIND.SERVER, clientSpanId]]);

    // Each remote subgraph's server span is the child of the gateway's client span for that subgraph (W3C traceparent).
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    for (const name of ['content', 'access']) {
      const clients = spans.filter(
        (s) => s.service === 'gateway' && s.kind === SPAN_KIND.CLIENT && s.name === `subgraph ${name}`,
      );
      expect(clients, describeSpans()).toHaveLength(1);
      const servers = spans.filter((s) => s.service === `subgraph-${name}` && s.kind === SPAN_KIND.SERVER);
      expect(
        servers.map((s) => s.parentSpanId),
        describeSpans(),
      ).toEqual([clients[0].spanId]);
      // Inside the service: GraphQL execution and the database queries, under that server span.
      const own = spans.filter((s) => s.service === `subgraph-${name}`);
      const under = (s: ReceivedSpan): boolean =>
        s.parentSpanId === servers[0].spanId || (byId.has(s.parentSpanId ?? '') && under(byId.get(s.parentSpanId!)!));
      expect(own.every((s) => s === servers[0] || under(s))).toBe(true);
      expect(
        own.some((s) => s.scope === '@opentelemetry/instrumentation-graphql' && /^query /.test(s.name)),
        describeSpans(),
      ).toBe(true);
      expect(
        own.some((s) => s.attributes['db.system'] === 'postgresql' || s.attributes['db.system.name'] === 'postgresql'),
        describeSpans(),
      ).toBe(true);
    }
    // @apollo/gateway's own spans (plan, fetch) join the same trace.
    expect(
      spans.some((s) => s.service === 'gateway' && s.name === 'gateway.plan'),
      describeSpans(),
    ).toBe(true);

    // Start-up (schema parsing) and background loops open no traces of their own: every exported trace is a request's.
    const withoutRequest = [...new Set(receiver.spans.map((s) => s.traceId))].filter(
      (id) => !receiver.spans.some((s) => s.traceId === id && s.kind === SPAN_KIND.SERVER),
    );
    expect(
      receiver.spans.filter((s) => withoutRequest.includes(s.traceId)).map((s) => `${s.service} ${s.name}`),
    ).toEqual([]);
  });

  it('loads no OpenTelemetry SDK when OTEL_EXPORTER_OTLP_ENDPOINT is unset', () => {
    const probe = (endpoint: string) =>
      execFileSync(
        process.execPath,
        [
          '-e',
          `const { startTracing } = require('./packages/tracing/dist/index.js');
           const tracing = startTracing('probe', { tracing: { endpoint: ${JSON.stringify(endpoint || undefined)} }, logLevel: 'silent' });
           require('express'); require('graphql');
           const sdk = Object.keys(require.cache).filter((k) => /@opentelemetry[\\\\/](sdk-|instrumentation|exporter)/.test(k));
           tracing.shutdown().then(() => console.log(JSON.stringify({ enabled: tracing.enabled, sdkModules: sdk.length })));`,
        ],
        { cwd: ROOT, encoding: 'utf8' },
      );
    expect(JSON.parse(probe(''))).toEqual({ enabled: false, sdkModules: 0 });
    // The same probe sees the SDK when tracing is on, so the check above can fail.
    const on = JSON.parse(probe('http://127.0.0.1:9'));
    expect(on.enabled).toBe(true);
    expect(on.sdkModules).toBeGreaterThan(10);
  });
});
