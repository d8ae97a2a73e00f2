// Writes the error envelope outside GraphQL execution (auth, routing, body parsing): every HTTP host's one writer.
import type { Logger } from '@cp/config';
import { RateLimitedError, toErrorEnvelope, type EdgeContext, type ErrorEnvelope } from '@cp/errors';
import type { ServerResponse } from 'node:http';
import { awaitingContinue, discardBody, LINGER_LIMITS } from './lingering-close';
import { logAnsweredFailure } from './failure-log';
import { respond } from './response-seam';

/** The GraphQL shape of an envelope: clients read `errors[]`, and the HTTP status still follows the code. */
export function graphqlErrorBody({ error: { code, message, details } }: ErrorEnvelope) {
  return { errors: [{ message, extensions: details ? { code, details } : { code } }] };
}

export interface ErrorWriting {
  /** GraphQL clients read `errors[]` (`graphqlErrorBody`); the status still follows the code. */
  graphql?: boolean;
  /** The request's facts (id, language) the envelope carries; each host knows them its own way. */
  edge: EdgeContext;
  /** Where answered failures are logged (`logAnsweredFailure`); none logs nothing. */
  logger?: Logger;
}

/** Every error answer of a host, REST and GraphQL alike, on Node's response (Express's extends it). */
export function writeError(res: ServerResponse, err: unknown, { graphql = false, edge, logger }: ErrorWriting): void {
  const { status, body } = toErrorEnvelope(err, edge);
  // Every unexpected error is logged with its request id (the client sees only that id); outages as one-liners.
  logAnsweredFailure(logger, body.error.code, err, edge.requestId);
  if (err instanceof RateLimitedError) res.setHeader('Retry-After', String(err.retryAfterSeconds));
  const text = JSON.stringify(graphql ? graphqlErrorBody(body) : body);
  answerAfterBody(res, () => {
    res.statusCode = status;
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Content-Length', Buffer.byteLength(text));
    respond(res, text, 'end');
  });
}

/**
 * An error answered before the request body was read (auth, unknown component, too large from Content-Length)
 * would reach a client that is still writing as a reset connection (ECONNRESET/EPIPE) instead of the envelope. A
 * client waiting for `100 Continue` has sent nothing and gets the answer at once; otherwise the body is read and
 * discarded first, within the lingering limits of lingering-close.ts, past which the answer goes out and the
 * connection closes.
 */
function answerAfterBody(res: ServerResponse, answer: () => void): void {
  const req = res.req;
  const socket = res.socket; // a request stream a reader destroyed no longer names it
  if (!req || !socket || req.complete || awaitingContinue(req)) return answer();
  if (Number(req.headers['content-length']) > LINGER_LIMITS.maxBytes) return answerAndClose(res, answer);
  void discardBody(req, socket).then((drained) => (drained ? answer() : answerAndClose(res, answer)));
}

function answerAndClose(res: ServerResponse, answer: () => void) {
  res.setHeader('Connection', 'close');
  answer();
}
