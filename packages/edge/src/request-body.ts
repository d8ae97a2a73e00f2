// A request's body, read once per request: its bytes (size limit, content encoding) kept for idempotency
// fingerprints, and its JSON parsed by one set of rules, which REST and GraphQL both read.
import { AppError, BadRequestError } from '@cp/errors';
import { assertJsonDepth, jsonBodyError } from '@cp/graphql';
import express, { type Request, type RequestHandler } from 'express';

/** A request the reader has seen: its body's bytes, decoded from their `Content-Encoding`; undefined without a body. */
export type BodyRequest = Request & { rawBody?: Buffer };

/**
 * Reads the body into `req.rawBody`, at most `limit` bytes (413 beyond), inflating gzip, deflate and br (415 for any
 * other encoding); a body cut short or longer than its `Content-Length` is 400. Every mount reads bodies through this
 * one stage, so the idempotency fingerprint, REST and GraphQL see the same bytes.
 */
export function readBody(limit: number): RequestHandler {
  const read = express.raw({ type: () => true, limit });
  return (req, res, next) =>
    read(req, res, (err?: unknown) => {
      if (err) return next(jsonBodyError(err, limit));
      const bytes = req.body as unknown;
      (req as BodyRequest).rawBody = Buffer.isBuffer(bytes) && bytes.length > 0 ? bytes : undefined;
      req.body = undefined;
      next();
    });
}

/** `application/json` or any `+json` type. */
export function isJsonType(contentType: string | undefined): boolean {
  const type = contentType?.split(';')[0].trim().toLowerCase();
  return type !== undefined && (type === 'application/json' || type.endsWith('+json'));
}

/**
 * JSON text as a value: UTF-8 only (RFC 8259; a body declared in another charset would be read as UTF-8 and mean
 * something else: 415), nesting checked before `JSON.parse` sees it, 400 when it is not JSON.
 */
export function parseJson(bytes: Buffer, contentType: string | undefined): unknown {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? '')?.[1].toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'The body must be UTF-8 JSON.', { charset });
  }
  const text = bytes.toString('utf8');
  assertJsonDepth(text);
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new BadRequestError('The body is not valid JSON.', { reason: (e as Error).message });
  }
}

/**
 * GraphQL's body: a JSON body (an object, or a batch's array) parsed into `req.body`, `{}` for an empty one; a body
 * of another type is left for Apollo to refuse (its CSRF rule names what it accepts).
 */
export function graphqlBody(limit: number): RequestHandler {
  const read = readBody(limit);
  return (req, res, next) =>
    read(req, res, (err?: unknown) => {
      if (err || !isJsonType(req.headers['content-type'])) return next(err);
      try {
        const raw = (req as BodyRequest).rawBody;
        const value = raw ? parseJson(raw, req.headers['content-type']) : {};
        if (typeof value !== 'object' || value === null) throw new BadRequestError('The body is not valid JSON.');
        req.body = value;
      } catch (thrown) {
        return next(thrown);
      }
      next();
    });
}
