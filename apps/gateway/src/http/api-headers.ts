// Protective headers on API responses: no sniffing, no framing, and no caching of admin or sign-in answers.
import express, { type NextFunction, type Request, type Response } from 'express';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';

/**
 * Scoped to the API paths, not set globally: the CDN sets its own and the HTML docs/GraphiQL pages need their own
 * CSP. `frame-ancestors` is the only CSP directive sent, so it restricts framing and nothing a page loads.
 * `/api/v1` keeps its own caching (published reads are cacheable); `/app/v1` (which holds sign-in) and GraphQL with a
 * bearer token are never stored by a browser or proxy.
 */
export function apiHeaders() {
  return (req: Request, res: Response, next: NextFunction) => {
    setApiHeaders(res, framed(req));
    const admin = req.baseUrl === '/app/v1' || (req.baseUrl === '/graphql' && req.headers.authorization !== undefined);
    if (admin) res.setHeader('Cache-Control', 'no-store');
    next();
  };
}

/**
 * Whether the answer sends CSP's `frame-ancestors`: not for a browser's GET asking for HTML, as Express negotiates it
 * (`req.accepts`: `text/*` and `TEXT/HTML` ask for HTML too). For Node's requests as well as Express's: the answers
 * given in front of Express (cache/early-answer.ts) must decide as `apiHeaders` does.
 */
export function framed(req: IncomingMessage): boolean {
  const accepts = express.request.accepts as (this: IncomingMessage, types: string[]) => string | false;
  return req.method !== 'GET' || accepts.call(req, ['json', 'html']) !== 'html';
}

/** No sniffing and no framing; `frameAncestors` unless a browser asked for an HTML page (which sets its own CSP). */
export function setApiHeaders(res: ServerResponse, frameAncestors: boolean): void {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('X-Frame-Options', 'DENY');
  if (frameAncestors) res.setHeader('Content-Security-Policy', "frame-ancestors 'none'");
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
