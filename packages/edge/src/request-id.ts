// The client's `X-Request-ID`, taken only when sane (answers and logs carry it), at every HTTP host.
import type { IncomingMessage } from 'node:http';

const VALID_REQUEST_ID = /^[\w.:-]{1,128}$/;

/** The request's own `X-Request-ID` when it is a short token; undefined otherwise (the host makes up its own). */
export function sentRequestId(req: IncomingMessage | undefined): string | undefined {
  const sent = req?.headers['x-request-id'];
  return typeof sent === 'string' && VALID_REQUEST_ID.test(sent) ? sent : undefined;
}
