// Every 503 the service answers says when to come back (`Retry-After`), whichever writer produced it.
import { UNAVAILABLE_RETRY_AFTER_SECONDS } from '@cp/errors';
import type { ServerResponse } from 'node:http';

/**
 * A 503 without `Retry-After` gets one as its head is written: one place instead of one per writer (the error
 * envelope, Apollo's status plugin, REST, readiness, the drain); Node writes an implicit head through `writeHead`
 * too. Installed once on the prototype the host's responses are born with (its Express app's `response`), so no
 * request pays for a wrapper of its own.
 */
export function retryAfterOn503(response: ServerResponse): void {
  const writeHead = response.writeHead;
  response.writeHead = function (this: ServerResponse, statusCode: number, ...rest: unknown[]) {
    if (statusCode === 503 && !this.headersSent && !this.hasHeader('retry-after'))
      this.setHeader('Retry-After', String(UNAVAILABLE_RETRY_AFTER_SECONDS));
    return (writeHead as (...args: unknown[]) => ServerResponse).call(this, statusCode, ...rest);
  } as ServerResponse['writeHead'];
}
