// Writes the D4 error envelope for errors raised outside GraphQL execution (auth, routing, body parsing).
import { RateLimitedError, toErrorEnvelope, type ErrorEnvelope } from '@cp/errors';
import type { Response } from 'express';
import { logAnsweredFailure } from './failure-log';
import { currentScope, edgeContext } from './request-scope';

/** The GraphQL shape of an envelope: clients read `errors[]`, and the HTTP status still follows D4. */
export function graphqlErrorBody({ error: { code, message, details } }: ErrorEnvelope) {
  return { errors: [{ message, extensions: details ? { code, details } : { code } }] };
}

export function sendError(res: Response, err: unknown): void {
  const { status, body } = toErrorEnvelope(err, edgeContext());
  // Every unexpected error is logged with its request id (the client sees only that id, D4).
  logAnsweredFailure(currentScope()?.logger, body.error.code, err);
  if (err instanceof RateLimitedError) res.setHeader('Retry-After', String(err.retryAfterSeconds));
  answerAfterBody(res, () => res.status(status).json(body));
}

/** Bodies up to this size are read to their end before an early error answer; larger ones are cut off. */
const DRAIN_LIMIT_BYTES = 1024 * 1024;

/**
 * An error answered before the request body was read (auth, unknown component, malformed headers) would make Node
 * reset a connection the client is still writing to, so the client sees ECONNRESET instead of the envelope. A small
 * body is read and discarded first; a large or endless one gets the answer at once and the connection closes.
 */
function answerAfterBody(res: Response, answer: () => void): void {
  const req = res.req;
  if (!req || req.complete || req.readableEnded || req.destroyed) return answer();
  const declared = Number(req.headers['content-length']);
  if (!(declared <= DRAIN_LIMIT_BYTES)) {
    res.setHeader('Connection', 'close');
    return answer();
  }
  let answered = false;
  const once = () => {
    if (answered) return;
    answered = true;
    answer();
  };
  req.once('end', once);
  req.once('error', once);
  req.once('close', once);
  req.resume();
}
