// Protective headers on API responses: no sniffing, no framing, and no caching of admin or sign-in answers.
import type { NextFunction, Request, Response } from 'express';
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';

/**
 * Scoped to the API paths, not set globally: the CDN sets its own and the HTML docs/GraphiQL pages need their own
 * CSP. `frame-ancestors` is the only CSP directive sent, so it restricts framing and nothing a page loads.
 * `/api/v1` keeps its own caching (published reads are cacheable); `/app/v1` (which holds sign-in) and GraphQL with a
 * bearer token are never stored by a browser or proxy.
 */
export function apiHeaders() {
  return (req: Request, res: Response, next: NextFunction) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('X-Frame-Options', 'DENY');
    if (framed(req)) res.setHeader('Content-Security-Policy', "frame-ancestors 'none'");
    const admin = req.baseUrl === '/app/v1' || (req.baseUrl === '/graphql' && req.headers.authorization !== undefined);
    if (admin) res.setHeader('Cache-Control', 'no-store');
    next();
  };
}

/**
 * Whether the answer sends CSP's `frame-ancestors`: not for a browser's GET asking for HTML, as Express negotiates it
 * (`req.accepts`: `text/*` and `TEXT/HTML` ask for HTML too); that page sets its own CSP.
 */
function framed(req: Request): boolean {
  if (req.method !== 'GET') return true;
  // Only an `Accept` naming a text type (or any type) can pick HTML; API clients' rarely do, and negotiation costs.
  const accept = req.headers.accept;
  if (accept === undefined || !/text|\*\/\*/i.test(accept)) return true;
  return req.accepts(['json', 'html']) !== 'html';
}

/**
 * Whatever a route sets, a preview key's answers (reads, errors, event streams) are never stored by a browser,
 * proxy or CDN and name no purge tags. Applied as the status line is written, so later `Cache-Control` writes (the
 * GraphQL server's own, an SSE stream's) cannot undo it.
 */
export function keepPrivate(res: ServerResponse): void {
  const writeHead = res.writeHead as (this: ServerResponse, status: number, message?: string) => ServerResponse;
  res.writeHead = ((status: number, ...rest: unknown[]) => {
    const message = rest.find((r): r is string => typeof r === 'string');
    const headers = rest.find(
      (r): r is OutgoingHttpHeaders => typeof r === 'object' && r !== null && !Array.isArray(r),
    );
    for (const [name, value] of Object.entries(headers ?? {})) if (value !== undefined) res.setHeader(name, value);
    const noTransform = /no-transform/i.test(String(res.getHeader('cache-control') ?? ''));
    res.setHeader('Cache-Control', noTransform ? 'private, no-store, no-transform' : 'private, no-store');
    res.removeHeader('Surrogate-Key');
    res.removeHeader('Cache-Tag');
    return message === undefined ? writeHead.call(res, status) : writeHead.call(res, status, message);
  }) as ServerResponse['writeHead'];
}
