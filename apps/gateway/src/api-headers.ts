// Protective headers on API responses (issue 11): no sniffing, no framing, and no caching of admin or sign-in answers.
import type { NextFunction, Request, Response } from 'express';
import type { ServerResponse } from 'node:http';

/**
 * Scoped to the API paths, not set globally: the CDN sets its own (D8) and the HTML docs/GraphiQL pages need their own
 * CSP. `frame-ancestors` is the only CSP directive sent, so it restricts framing and nothing a page loads.
 * `/api/v1` keeps its own caching (published reads are cacheable); `/app/v1` (which holds sign-in) and GraphQL with a
 * bearer token are never stored by a browser or proxy.
 */
export function apiHeaders() {
  return (req: Request, res: Response, next: NextFunction) => {
    setApiHeaders(res, req.method !== 'GET' || req.accepts(['json', 'html']) !== 'html');
    const admin = req.baseUrl === '/app/v1' || (req.baseUrl === '/graphql' && req.headers.authorization !== undefined);
    if (admin) res.setHeader('Cache-Control', 'no-store');
    next();
  };
}

/** No sniffing and no framing; `frameAncestors` unless a browser asked for an HTML page (which sets its own CSP). */
export function setApiHeaders(res: ServerResponse, frameAncestors: boolean): void {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('X-Frame-Options', 'DENY');
  if (frameAncestors) res.setHeader('Content-Security-Policy', "frame-ancestors 'none'");
}
