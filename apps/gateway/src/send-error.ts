// Writes the D4 error envelope for errors raised outside GraphQL execution (auth, routing, body parsing).
import { RateLimitedError, toErrorEnvelope } from '@cp/errors';
import type { Response } from 'express';
import { edgeContext } from './request-scope';

export function sendError(res: Response, err: unknown): void {
  const { status, body } = toErrorEnvelope(err, edgeContext());
  if (err instanceof RateLimitedError) res.setHeader('Retry-After', String(err.retryAfterSeconds));
  res.status(status).json(body);
}
