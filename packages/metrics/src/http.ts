// Request duration by route family, method and status, and the protected `/metrics` endpoint.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import { histogram, renderMetrics } from './registry';

/**
 * The `family` label of a request: which kind of traffic its path is (GraphQL, an API family, CDN delivery, event
 * streams, anything else). Classifies paths for metrics; the API families themselves are `ApiFamily` (`@cp/graphql`).
 */
export type RequestFamily = 'graphql' | 'app' | 'api' | 'cdn' | 'events' | 'other';

/** Bounded label values: paths never become labels (ids would explode the series count). */
export function requestFamily(path: string): RequestFamily {
  if (path.startsWith('/graphql')) return 'graphql';
  if (path.startsWith('/cdn/')) return 'cdn';
  const family = path.startsWith('/app/') ? 'app' : path.startsWith('/api/') ? 'api' : 'other';
  if (family !== 'other' && /\/events(\/|$)/.test(path)) return 'events';
  return family;
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

let requestDuration: ReturnType<typeof histogram<'family' | 'method' | 'status'>> | undefined;

/** Observes every request when its response closes (SSE streams: their whole lifetime). */
export function observeRequest(req: IncomingMessage, res: ServerResponse): void {
  requestDuration ??= histogram(
    'cp_http_request_duration_seconds',
    'HTTP request duration by route family, method and status.',
    ['family', 'method', 'status'],
    [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  );
  const end = requestDuration.startTimer();
  // Read now: routers rewrite `req.url` while the request is handled.
  const family = requestFamily(req.url ?? '/');
  res.once('close', () => {
    const method = METHODS.has(req.method ?? '') ? req.method! : 'OTHER';
    end({ family, method, status: String(res.statusCode) });
  });
}

export interface MetricsAccess {
  /** Bearer token required on the service port; without it `/metrics` is not served there. */
  token?: string;
}

/** `GET /metrics` on the service port: only with `Authorization: Bearer <METRICS_TOKEN>`; 404 when no token is set. */
export function metricsEndpoint(access: MetricsAccess) {
  const expected = access.token ? Buffer.from(`Bearer ${access.token}`) : undefined;
  return async (req: IncomingMessage, res: ServerResponse, next: () => void) => {
    if (!expected) return next();
    const given = Buffer.from(req.headers.authorization ?? '');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      res.statusCode = 401;
      res.setHeader('WWW-Authenticate', 'Bearer realm="metrics"');
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ error: { code: 'UNAUTHORIZED', message: 'Metrics need the metrics token.' } }));
      return;
    }
    await send(res);
  };
}

async function send(res: ServerResponse): Promise<void> {
  const { contentType, body } = await renderMetrics();
  res.setHeader('Content-Type', contentType);
  res.setHeader('Cache-Control', 'no-store');
  res.end(body);
}

/** A separate metrics listener (`METRICS_PORT`), on loopback by default: no token, reachable from the host only. */
export async function startMetricsServer(port: number, host: string): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.method === 'GET' && (req.url ?? '').split('?')[0] === '/metrics') return void send(res);
    res.statusCode = 404;
    res.end();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  return server;
}
