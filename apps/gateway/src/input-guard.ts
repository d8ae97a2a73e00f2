// Refuses malformed input at the edge, before any route, service or database sees it (issue 11): 400 with the envelope.
import { BadRequestError } from '@cp/errors';
import type { NextFunction, Request, Response } from 'express';
import { sendError } from './send-error';

/** Deeper JSON than this is refused before parsing: component trees nest a few levels per child, never hundreds. */
export const MAX_JSON_DEPTH = 128;

/** Path segments are ids and names: never control characters, never `.`/`..`, always valid UTF-8 percent-encoding. */
const PATH_CONTROL = /[\u0000-\u001f\u007f]/;

/** A lone UTF-16 surrogate (from `%ED%A0%80`-style input or a `\ud800` JSON escape) is not text. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const wellFormed = (s: string) => !LONE_SURROGATE.test(s);

function decode(raw: string, what: Record<string, unknown>): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new BadRequestError('The URL holds invalid percent-encoding.', what);
  }
}

export function assertSafeUrl(originalUrl: string): void {
  const q = originalUrl.indexOf('?');
  const path = q === -1 ? originalUrl : originalUrl.slice(0, q);
  for (const raw of path.split('/')) {
    const segment = decode(raw, { segment: raw.slice(0, 200) });
    if (segment === '.' || segment === '..') throw new BadRequestError('A path segment may not be `.` or `..`.', { segment });
    if (PATH_CONTROL.test(segment) || !wellFormed(segment)) {
      throw new BadRequestError('A path segment holds control characters or invalid Unicode.', { segment: raw.slice(0, 200) });
    }
  }
  if (q !== -1) assertSafeQuery(originalUrl.slice(q + 1));
}

/**
 * One plain value per parameter: `a[]=1`, `a[b]=1` and repeated names would reach arguments as arrays or objects
 * (express's `qs`), which no route takes; the spec's lists are comma-separated.
 */
function assertSafeQuery(query: string): void {
  const seen = new Set<string>();
  for (const pair of query.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const rawName = eq === -1 ? pair : pair.slice(0, eq);
    const name = decode(rawName.replace(/\+/g, ' '), { parameter: rawName.slice(0, 100) });
    const value = eq === -1 ? '' : decode(pair.slice(eq + 1).replace(/\+/g, ' '), { parameter: name.slice(0, 100) });
    if (/[[\]]/.test(name)) throw new BadRequestError(`Query parameter "${name}" uses unsupported bracket syntax.`, { parameter: name });
    if (seen.has(name)) throw new BadRequestError(`Query parameter "${name}" is given more than once.`, { parameter: name });
    seen.add(name);
    if (name.includes('\u0000') || value.includes('\u0000') || !wellFormed(name) || !wellFormed(value)) {
      throw new BadRequestError(`Query parameter "${name}" holds a NUL byte or invalid Unicode.`, { parameter: name });
    }
  }
}

/** Express middleware: every request's path and query string pass `assertSafeUrl`. */
export function inputGuard() {
  return (req: Request, res: Response, next: NextFunction) => {
    try {
      assertSafeUrl(req.originalUrl);
    } catch (err) {
      return sendError(res, err);
    }
    next();
  };
}

/** Counts nesting in raw JSON text (outside strings) so a deeply nested body is refused before `JSON.parse` sees it. */
export function assertJsonDepth(text: string, max = MAX_JSON_DEPTH): void {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (++depth > max) throw new BadRequestError(`The JSON body nests deeper than ${max} levels.`, { maxDepth: max });
    } else if (c === 125 || c === 93) depth--;
  }
}

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

/** /graphql: the parsed body (or GET parameters) get the same checks as REST bodies, plus NUL escapes in the document. */
export function assertSafeGraphQLPayload(payload: unknown): void {
  assertSafeJsonValue(payload);
  const query = (payload as { query?: unknown } | undefined)?.query;
  if (typeof query === 'string' && GRAPHQL_NUL_ESCAPE.test(query)) {
    throw new BadRequestError('A string in the document holds a NUL byte.', { path: '/query' });
  }
}

export function graphqlInputGuard(send: (res: Response, err: unknown) => void) {
  return (req: Request, res: Response, next: NextFunction) => {
    try {
      assertSafeGraphQLPayload(req.method === 'GET' ? req.query : req.body);
    } catch (err) {
      return send(res, err);
    }
    next();
  };
}
