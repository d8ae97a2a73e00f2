// Writes the D4 error envelope for errors raised outside GraphQL execution (auth, routing, body parsing): the edge's one writer.
import type { Logger } from '@cp/config';
import { RateLimitedError, toErrorEnvelope, type EdgeContext, type ErrorEnvelope } from '@cp/errors';
import type { ServerResponse } from 'node:http';
import { currentScope, edgeContext } from './request-scope';

/** The GraphQL shape of an envelope: clients read `errors[]`, and the HTTP status still follows D4. */
export function graphqlErrorBody({ error: { code, message, details } }: ErrorEnvelope) {
  return { errors: [{ message, extensions: details ? { code, details } : { code } }] };
}

export interface ErrorWriting {
  /** GraphQL clients read `errors[]` (`graphqlErrorBody`); the status still follows D4. */
  graphql?: boolean;
  /** The request's facts and logger; by default the request scope's (a request answered before Express passes its own). */
  edge?: EdgeContext;
  logger?: Logger;
}

/** Every error answer of the edge: REST, GraphQL, and the early cache path in front of Express (Node's response). */
export function writeError(res: ServerResponse, err: unknown, { graphql = false, edge = edgeContext(), logger = currentScope()?.logger }: ErrorWriting = {}): void {
  const { status, body } = toErrorEnvelope(err, edge);
  // Every unexpected error is logged with its request id (the client sees only that id, D4).
  if (status >= 500) logger?.error({ err, requestId: edge.requestId }, 'unexpected error');
  if (err instanceof RateLimitedError) res.setHeader('Retry-After', String(err.retryAfterSeconds));
  const text = JSON.stringify(graphql ? graphqlErrorBody(body) : body);
  answerAfterBody(res, () => {
    res.statusCode = status;
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Content-Length', Buffer.byteLength(text));
    res.end(text);
  });
}

export const sendError = (res: ServerResponse, err: unknown): void => writeError(res, err);
export const sendGraphQLError = (res: ServerResponse, err: unknown): void => writeError(res, err, { graphql: true });

/** Bodies up to this size are read to their end before an early error answer; larger ones are cut off. */
const DRAIN_LIMIT_BYTES = 1024 * 1024;

/**
 * An error answered before the request body was read (auth, unknown component, malformed headers) would make Node
 * reset a connection the client is still writing to, so the client sees ECONNRESET instead of the envelope. A small
 * body is read and discarded first; a large or endless one gets the answer at once and the connection closes.
 */
function answerAfterBody(res: ServerResponse, answer: () => void): void {
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
