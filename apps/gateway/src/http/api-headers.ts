// Protective headers on API responses: no sniffing, no framing, and no caching of admin or sign-in answers.
import type { NextFunction, Request, Response } from 'express';
import { apiMount } from './api-mount';

/**
 * Scoped to the API paths, not set globally: the CDN sets its own and the HTML docs/GraphiQL pages need their own
 * CSP. `frame-ancestors` is the only CSP directive sent, so it restricts framing and nothing a page loads.
 * `/api/v1` keeps its own caching (published reads are cacheable); `/app/v1` (which holds sign-in) and GraphQL with a
 * bearer token are never stored by a browser or proxy.
 */
export function apiHeaders() {
  return (req: Request, res: Response, next: NextFunction) => {
    const mount = apiMount(req);
    if (mount === undefined) return next();
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('X-Frame-Options', 'DENY');
    if (framed(req)) res.setHeader('Content-Security-Policy', "frame-ancestors 'none'");
    const admin = mount === '/app/v1' || (mount === '/graphql' && req.headers.authorization !== undefined);
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
