// Every 503 the service answers says when to come back (`Retry-After`), whichever error writer produced it.
import { UNAVAILABLE_RETRY_AFTER_SECONDS } from '@cp/errors';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';

/**
 * Wraps the HTTP listener: a 503 without `Retry-After` gets one as its head is written. One place instead of one per
 * writer (Express's error handler, Apollo's status plugin, REST, the read cache's early answers); Node writes an
 * implicit head through `writeHead` too.
 */
export function retryAfterOn503(listener: RequestListener): RequestListener {
  return (req: IncomingMessage, res: ServerResponse) => {
    const writeHead = res.writeHead;
    res.writeHead = function (this: ServerResponse, statusCode: number, ...rest: unknown[]) {
      if (statusCode === 503 && !this.headersSent && !this.hasHeader('retry-after'))
        this.setHeader('Retry-After', String(UNAVAILABLE_RETRY_AFTER_SECONDS));
      return (writeHead as (...args: unknown[]) => ServerResponse).call(this, statusCode, ...rest);
    } as ServerResponse['writeHead'];
    listener(req, res);
  };
}
