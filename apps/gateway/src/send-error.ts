// Writes the D4 error envelope for errors raised outside GraphQL execution (auth, routing, body parsing).
import { RateLimitedError, toErrorEnvelope, type ErrorEnvelope } from '@cp/errors';
import type { Response } from 'express';
import { awaitingContinue, discardBody, LINGER_LIMITS } from './early-answers';
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

/**
 * An error answered before the request body was read (auth, unknown component, too large from Content-Length)
 * would reach a client that is still writing as a reset connection (ECONNRESET/EPIPE) instead of the envelope. A
 * client waiting for `100 Continue` has sent nothing and gets the answer at once; otherwise the body is read and
 * discarded first, within the lingering limits of early-answers.ts, past which the answer goes out and the
 * connection closes.
 */
function answerAfterBody(res: Response, answer: () => void): void {
  const req = res.req;
  const socket = res.socket; // a request stream a reader destroyed no longer names it
  if (!req || !socket || req.complete || awaitingContinue(req)) return answer();
  if (Number(req.headers['content-length']) > LINGER_LIMITS.maxBytes) return answerAndClose(res, answer);
  void discardBody(req, socket).then((drained) => (drained ? answer() : answerAndClose(res, answer)));
}

function answerAndClose(res: Response, answer: () => void) {
  res.setHeader('Connection', 'close');
  answer();
}
