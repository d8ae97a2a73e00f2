// Rules every answer's head follows, whichever writer produced it: applied as the status line is written.
import { UNAVAILABLE_RETRY_AFTER_SECONDS } from '@cp/errors';
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';

const privateAnswers = new WeakSet<ServerResponse>();

/**
 * Whatever a route sets, this response (a read, an error, an event stream) is never stored by a browser, proxy or
 * CDN and names no purge tags: a preview key's answers show drafts.
 */
export function keepPrivate(res: ServerResponse): void {
  privateAnswers.add(res);
}

/**
 * Installs the rules on the prototype the host's responses are born with (its Express app's `response`), once, so no
 * request pays for a wrapper of its own; Node writes an implicit head through `writeHead` too. One place instead of
 * one per writer (the error envelope, Apollo's status plugin, REST, readiness, the drain, SSE streams):
 * - a 503 without `Retry-After` gets one;
 * - a private answer gets `Cache-Control: private, no-store` (keeping `no-transform`) and loses its purge tags, even
 *   when the writer passes its own headers to `writeHead`.
 */
export function headRules(response: ServerResponse): void {
  const writeHead = response.writeHead as (this: ServerResponse, ...args: unknown[]) => ServerResponse;
  response.writeHead = function (this: ServerResponse, statusCode: number, ...rest: unknown[]) {
    if (!this.headersSent) {
      if (statusCode === 503 && !this.hasHeader('retry-after'))
        this.setHeader('Retry-After', String(UNAVAILABLE_RETRY_AFTER_SECONDS));
      if (privateAnswers.has(this)) return writePrivateHead(this, writeHead, statusCode, rest);
    }
    return writeHead.call(this, statusCode, ...rest);
  } as ServerResponse['writeHead'];
}

function writePrivateHead(
  res: ServerResponse,
  writeHead: (this: ServerResponse, ...args: unknown[]) => ServerResponse,
  statusCode: number,
  rest: unknown[],
): ServerResponse {
  const message = rest.find((r): r is string => typeof r === 'string');
  const headers = rest.find((r): r is OutgoingHttpHeaders => typeof r === 'object' && r !== null && !Array.isArray(r));
  for (const [name, value] of Object.entries(headers ?? {})) if (value !== undefined) res.setHeader(name, value);
  const noTransform = /no-transform/i.test(String(res.getHeader('cache-control') ?? ''));
  res.setHeader('Cache-Control', noTransform ? 'private, no-store, no-transform' : 'private, no-store');
  res.removeHeader('Surrogate-Key');
  res.removeHeader('Cache-Tag');
  return message === undefined ? writeHead.call(res, statusCode) : writeHead.call(res, statusCode, message);
}
