// Conditional reads: whether a client's copy is current, one rule for every answer that carries an ETag.
import type { IncomingMessage } from 'node:http';

/**
 * True when `If-None-Match` names `etag` (→ 304), by the weak comparison (RFC 9110 §13.1.2: `W/` prefixes are
 * ignored, `*` matches any). The origin evaluates the condition whatever the request's `Cache-Control` says: `no-cache`
 * is addressed to caches on the way, and `fetch` adds it to every request that carries a validator, so heeding it
 * would answer every browser's revalidation in full. The read cache, admin reads, the CDN and Express's own `send`
 * (through the host's `req.fresh`) all ask here.
 */
export function notModified(req: IncomingMessage, etag: string): boolean {
  const header = req.headers['if-none-match'];
  if (!header) return false;
  if (header.trim() === '*') return true;
  const wanted = opaque(etag);
  return header.split(',').some((tag) => opaque(tag.trim()) === wanted);
}

const opaque = (tag: string) => (tag.startsWith('W/') ? tag.slice(2) : tag);
