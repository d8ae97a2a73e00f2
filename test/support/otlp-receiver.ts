// An OTLP/HTTP (JSON) trace receiver for tests: what a collector would get, kept in memory.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

/** One received span, flattened: its process's `service.name` and attributes as plain values. */
export interface ReceivedSpan {
  service: string;
  scope: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** OTLP `SpanKind`: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, unknown>;
}

export const SPAN_KIND = { INTERNAL: 1, SERVER: 2, CLIENT: 3 } as const;

export interface OtlpReceiver {
  /** The base URL for `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  url: string;
  spans: ReceivedSpan[];
  close(): Promise<void>;
}

type AnyValue = { stringValue?: string; intValue?: number | string; boolValue?: boolean; doubleValue?: number };
type KeyValue = { key: string; value: AnyValue };

const plain = (v: AnyValue) =>
  v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : (v.boolValue ?? v.doubleValue));
const attributesOf = (list: KeyValue[] = []) => Object.fromEntries(list.map((a) => [a.key, plain(a.value)]));

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') return void res.writeHead(404).end();
      let raw = Buffer.concat(chunks);
      if (req.headers['content-encoding'] === 'gzip') raw = gunzipSync(raw);
      if (!String(req.headers['content-type']).startsWith('application/json')) return void res.writeHead(415).end();
      const body = JSON.parse(raw.toString());
      for (const rs of body.resourceSpans ?? []) {
        const service = String(attributesOf(rs.resource?.attributes)['service.name']);
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            spans.push({
              service,
              scope: ss.scope?.name ?? '',
              traceId: s.traceId,
              spanId: s.spanId,
              parentSpanId: s.parentSpanId || undefined,
              name: s.name,
              kind: s.kind,
              attributes: attributesOf(s.attributes),
            });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A fresh W3C `traceparent` (sampled) and its trace id: the spans a request sends back are found by it. */
export function newTrace(): { traceId: string; traceparent: string } {
  const traceId = randomBytes(16).toString('hex');
  return { traceId, traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` };
}

/** How many PostgreSQL statements a trace ran, once the count holds still (the batch exporter sends every 50 ms). */
export async function statementsOf(receiver: OtlpReceiver, traceId: string): Promise<number> {
  const queries = () =>
    receiver.spans.filter(
      (s) =>
        s.traceId === traceId &&
        (s.attributes['db.system'] === 'postgresql' || s.attributes['db.system.name'] === 'postgresql') &&
        !/connect/i.test(s.name),
    ).length;
  let count = -1;
  for (let stable = 0; stable < 3;) {
    await new Promise((r) => setTimeout(r, 150));
    const now = queries();
    stable = now === count && now > 0 ? stable + 1 : 0;
    count = now;
  }
  return count;
}
