// Conditional reads: whether a client's copy is current, one rule for every answer that carries an ETag.
import fresh from 'fresh';
import type { IncomingMessage } from 'node:http';

/**
 * True when `If-None-Match` names `etag` (→ 304), decided by `fresh` as Express decides it for the answers it sends:
 * the weak comparison (RFC 9110 §13.1.2: `W/` prefixes are ignored, `*` matches anything), and `Cache-Control:
 * no-cache` in the request asks for the whole answer. The read cache, admin reads and the CDN all ask here.
 */
export function notModified(req: IncomingMessage, etag: string): boolean {
  return req.headers['if-none-match'] !== undefined && fresh(req.headers, { etag });
}
