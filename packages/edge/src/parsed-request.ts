// Each request's URL is parsed once, into the one value every layer reads: input guard, cache keys, REST, GraphQL.
import { BadRequestError } from '@cp/errors';
import type { IncomingMessage } from 'node:http';

/** More query parameters than any route takes; beyond this a URL is refused rather than parsed in part. */
export const MAX_QUERY_PARAMETERS = 100;

export interface ParsedUrl {
  /** The path, still percent-encoded (routers match it as sent). */
  path: string;
  /** Every query parameter, decoded: one string per name (a null-prototype object, so `__proto__` is just a name). */
  query: Readonly<Record<string, string>>;
}

/** Path segments are ids and names: never control characters, never `.`/`..`, always valid UTF-8 percent-encoding. */
// eslint-disable-next-line no-control-regex -- control characters are exactly what this refuses
const PATH_CONTROL = /[\u0000-\u001f\u007f]/;

/** A lone UTF-16 surrogate (from `%ED%A0%80`-style input or a `\ud800` JSON escape) is not text. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export const wellFormed = (s: string) => !LONE_SURROGATE.test(s);

function decode(raw: string, what: Record<string, unknown>): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new BadRequestError('The URL holds invalid percent-encoding.', what);
  }
}

/**
 * The one bracket form admitted: an operator on a document field, `content.<path>[<op>]` (`content.price[gte]=10`).
 * Only REST reads it, from this parsed query, as a name of its own; qs would make an object of it.
 */
export const FIELD_OPERATOR = /^content\.[^[\]]+\[[a-z]+\]$/;

/**
 * A path of printable ASCII without `%`, as nearly every request's is: decoding gives each segment back unchanged and
 * none can hold a control character or a lone surrogate, so only a `.`/`..` segment (`DOT_SEGMENT`) is left to refuse.
 */
const PLAIN_PATH = /^[\x20-\x24\x26-\x7e]*$/;
const DOT_SEGMENT = /(?:^|\/)\.\.?(?:\/|$)/;

/** Every segment of `path` decoded and checked: BAD_REQUEST for the first that is not a plain, well-formed name. */
function checkSegments(path: string): void {
  for (const raw of path.split('/')) {
    const segment = decode(raw, { segment: raw.slice(0, 200) });
    if (segment === '.' || segment === '..')
      throw new BadRequestError('A path segment may not be `.` or `..`.', { segment });
    if (PATH_CONTROL.test(segment) || !wellFormed(segment)) {
      throw new BadRequestError('A path segment holds control characters or invalid Unicode.', {
        segment: raw.slice(0, 200),
      });
    }
  }
}

/**
 * The URL as every layer sees it, or BAD_REQUEST. One plain value per parameter: `a[]=1`, `a[b]=1` and repeated
 * names are refused (but `FIELD_OPERATOR`'s form) (qs would make arrays or objects of them, URLSearchParams would keep the first or the last,
 * Apollo refuses some of them: each reader would see another request), and so are more than
 * `MAX_QUERY_PARAMETERS` (qs silently drops everything after its 1,000th).
 */
export function parseUrl(url: string): ParsedUrl {
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  if (!PLAIN_PATH.test(path) || DOT_SEGMENT.test(path)) checkSegments(path);
  const query: Record<string, string> = Object.create(null);
  if (q === -1) return { path, query };
  let count = 0;
  for (const pair of url.slice(q + 1).split('&')) {
    if (pair === '') continue;
    if (++count > MAX_QUERY_PARAMETERS) {
      throw new BadRequestError(`The URL has more than ${MAX_QUERY_PARAMETERS} query parameters.`, {
        limit: 'queryParameters',
        max: MAX_QUERY_PARAMETERS,
      });
    }
    const eq = pair.indexOf('=');
    const rawName = eq === -1 ? pair : pair.slice(0, eq);
    const name = decode(rawName.replace(/\+/g, ' '), { parameter: rawName.slice(0, 100) });
    const value = eq === -1 ? '' : decode(pair.slice(eq + 1).replace(/\+/g, ' '), { parameter: name.slice(0, 100) });
    if (/[[\]]/.test(name) && !FIELD_OPERATOR.test(name))
      throw new BadRequestError(`Query parameter "${name}" uses unsupported bracket syntax.`, { parameter: name });
    if (name in query)
      throw new BadRequestError(`Query parameter "${name}" is given more than once.`, { parameter: name });
    if (name.includes('\u0000') || value.includes('\u0000') || !wellFormed(name) || !wellFormed(value)) {
      throw new BadRequestError(`Query parameter "${name}" holds a NUL byte or invalid Unicode.`, { parameter: name });
    }
    query[name] = value;
  }
  return { path, query };
}

const PARSED = Symbol('cp.parsedUrl');
type Parsed = { value: ParsedUrl } | { error: unknown };

/**
 * The request's parsed URL: computed by the first layer that asks (the input guard, before any router rewrites
 * `req.url`), kept on the request, refusal included, so no later layer parses again.
 */
export function parsedUrl(req: IncomingMessage): ParsedUrl {
  const holder = req as IncomingMessage & { [PARSED]?: Parsed; originalUrl?: string };
  let parsed = holder[PARSED];
  if (!parsed) {
    try {
      parsed = { value: parseUrl(holder.originalUrl ?? req.url ?? '') };
    } catch (error) {
      parsed = { error };
    }
    holder[PARSED] = parsed;
  }
  if ('error' in parsed) throw parsed.error;
  return parsed.value;
}

/**
 * Refuses a query parameter the route does not take (400 naming it). Every REST route and HTTP route applies it to
 * its declared parameters, so a misspelt or unsupported one is an error instead of a silently wider answer.
 */
export function assertDeclaredParameters(declared: Iterable<string>, query: Readonly<Record<string, string>>): void {
  const known = declared instanceof Set ? (declared as ReadonlySet<string>) : new Set(declared);
  for (const name in query) {
    if (!known.has(name))
      throw new BadRequestError(`Unknown query parameter "${name}": this route does not take it.`, {
        parameter: name,
        accepted: [...known].sort(),
      });
  }
}

/** The four members of a GraphQL request over GET (GraphQL over HTTP); every other parameter is ignored by Apollo. */
const GRAPHQL_GET_PARAMETERS = ['query', 'operationName', 'variables', 'extensions'] as const;

/** What a GraphQL request carries: the parsed query string for GET, the parsed JSON body for POST. */
export function graphqlPayload(req: IncomingMessage & { body?: unknown }): unknown {
  return req.method === 'GET' ? parsedUrl(req).query : req.body;
}

/** The parsed GET parameters, encoded for Apollo (which reads `search` with URLSearchParams: the same value back). */
export function graphqlSearch(query: Readonly<Record<string, string>>): string {
  const params = new URLSearchParams();
  for (const name of GRAPHQL_GET_PARAMETERS) if (name in query) params.set(name, query[name]);
  const search = params.toString();
  return search && `?${search}`;
}
