// Refuses malformed JSON values and GraphQL payloads at the edge, before any route, service or database sees them.
import { BadRequestError } from '@cp/errors';
import type { NextFunction, Request, Response } from 'express';
import { graphqlPayload, wellFormed } from './parsed-request';

/** Strings reach PostgreSQL, which refuses NUL bytes; lone surrogates are not text. Both are the client's 400. */
export function assertSafeJsonValue(value: unknown, path = ''): void {
  if (typeof value === 'string') {
    if (value.includes('\u0000') || !wellFormed(value)) {
      throw new BadRequestError('A string in the body holds a NUL byte or invalid Unicode.', { path: path || '/' });
    }
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => assertSafeJsonValue(v, `${path}/${i}`));
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const member = `${path}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      assertSafeJsonValue(k, member);
      assertSafeJsonValue(v, member);
    }
  }
}

/** A GraphQL string literal can spell a NUL byte as an escape; variables are plain JSON values. */
const GRAPHQL_NUL_ESCAPE = /\\u(0000|\{0+\})/i;

/** /graphql: the parsed body (or GET parameters) get the same checks as REST bodies, plus NUL escapes in the document and an empty operation name. */
export function assertSafeGraphQLPayload(payload: unknown): void {
  assertSafeJsonValue(payload);
  const { query, operationName } = (payload ?? {}) as { query?: unknown; operationName?: unknown };
  // "" names no operation: graphql-js then finds none while the gateway runs the only one, and Apollo fails (500).
  if (operationName === '')
    throw new BadRequestError('operationName may not be empty: leave it out to run the only operation.', {
      parameter: 'operationName',
    });
  if (typeof query === 'string' && GRAPHQL_NUL_ESCAPE.test(query)) {
    throw new BadRequestError('A string in the document holds a NUL byte.', { path: '/query' });
  }
}

export function graphqlInputGuard(send: (res: Response, err: unknown) => void) {
  return (req: Request, res: Response, next: NextFunction) => {
    try {
      assertSafeGraphQLPayload(graphqlPayload(req));
    } catch (err) {
      return send(res, err);
    }
    next();
  };
}
