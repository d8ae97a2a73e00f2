// Express middleware in front of client reads (/api/v1 GETs, API-key GraphQL queries): answer from the cache or fill it.
import { sharedCacheable, type Context } from '@cp/graphql';
import type { NextFunction, Request, Response } from 'express';
import { addEndStep, edgeContext, graphqlPayload, notModified, parsedUrl } from '@cp/edge';
import { graphqlRequestKey } from './graphql-key';
import { applyCachingHeaders, etagOf, sendCached, surrogateKeys } from './http-caching';
import type { CachedResponse, FillTicket, ReadCache } from './read-cache';

export interface ClientCacheOptions {
  /** Undefined when `CACHE=off`: HTTP validators still apply, nothing is kept in memory. */
  cache?: ReadCache;
  cdnMaxAge: number;
}

type Middleware = (req: Request, res: Response, next: NextFunction) => void;

/**
 * Runs after authentication and rate limiting (they stay per request, so a revoked key or an exhausted budget is
 * refused even when the answer is cached) and before sofa/Apollo. Only published API keys are served: JWT callers
 * and preview keys see drafts (and staff per-user data), so their answers are never cached.
 */
export function clientReadCache(options: ClientCacheOptions): { rest: Middleware; graphql: Middleware } {
  const serve = (
    req: Request,
    res: Response,
    next: NextFunction,
    projectId: string,
    key: string,
    /** Purge tags, needed only when an answer is stored. */
    tags: () => string,
    validate: (body: Buffer) => boolean,
  ) => {
    const fullKey = cacheKey(projectId, edgeContext().lang, key);
    const hit = options.cache?.get(fullKey);
    if (hit) return sendCached(req, res, hit, options.cdnMaxAge);
    const ticket = options.cache?.ticket(projectId);
    captureBody(req, res, (body) => {
      // A handler that answered from state older than an event it has seen (the typed endpoint while its schema is
      // rebuilt) says so: the ticket can't tell, the event came before it.
      if (!validate(body) || res.locals.uncacheable === true) {
        res.setHeader('Cache-Control', 'no-store');
        return false;
      }
      const response: CachedResponse = {
        contentType: String(res.getHeader('content-type') ?? 'application/json; charset=utf-8'),
        body,
        etag: etagOf(body),
        surrogateKeys: tags(),
      };
      const stored = ticket ? options.cache!.store(ticket as FillTicket, fullKey, response) : false;
      applyCachingHeaders(res, response, options.cdnMaxAge, options.cache ? 'MISS' : 'BYPASS');
      if (!stored && options.cache) res.setHeader('X-Cache', 'BYPASS');
      return notModified(req, response.etag);
    });
    next();
  };

  return {
    rest(req, res, next) {
      const principal = (res.locals.context as Context | undefined)?.principal;
      if (req.method !== 'GET' || !sharedCacheable(principal)) return next();
      // /organizations/{org}/projects/{proj}/<family>/<id>/…: tags name the family and the resource.
      const tags = () => {
        const segments = req.path.split('/').filter(Boolean);
        const resource = segments[0] === 'organizations' && segments[2] === 'projects' ? segments.slice(4) : segments;
        return surrogateKeys(principal.projectId, resource);
      };
      serve(req, res, next, principal.projectId, restKey(req.originalUrl), tags, () => true);
    },
    graphql(req, res, next) {
      const principal = (res.locals.context as Context | undefined)?.principal;
      if ((req.method !== 'GET' && req.method !== 'POST') || !sharedCacheable(principal)) return next();
      const key = graphqlKey(req);
      if (!key) return next();
      serve(
        req,
        res,
        next,
        principal.projectId,
        // The same document means another thing at /graphql and at a project's typed endpoint.
        `${parsedUrl(req).path}\0${key}`,
        () => surrogateKeys(principal.projectId, ['graphql']),
        isCleanGraphQLResult,
      );
    },
  };
}

/** Everything that can change an answer: the key's project, the negotiated language, and the request. */
export const cacheKey = (projectId: string, lang: string, request: string) => `${projectId}\0${lang}\0${request}`;
/** A REST read is identified by its whole URL, query string included. */
export const restKey = (originalUrl: string) => `rest\0${originalUrl}`;

/**
 * A GraphQL read by its normalised request (graphql-key.ts) and `Accept`; undefined when it is not cacheable. Reads
 * the request's one parsed value (`graphqlPayload`).
 */
export function graphqlKey(req: Request): string | undefined {
  const key = graphqlRequestKey(req.method, graphqlPayload(req));
  return key && `${key}\0${req.headers.accept ?? ''}`;
}

/** Only complete answers are kept: a result with `errors` (even partial data) is answered but never cached. */
function isCleanGraphQLResult(body: Buffer): boolean {
  try {
    const result = JSON.parse(body.toString('utf8')) as { data?: unknown; errors?: unknown };
    return result.errors === undefined && result.data !== null && typeof result.data === 'object';
  } catch {
    return false;
  }
}

/**
 * Sees the response body as the handler answers it (`respond`), while headers can still change. `onBody` gets a body
 * that owns its bytes (a cache may keep it) and decides: headers set, and true when the client's copy is current
 * (→ 304, no body). Anything but 200 is passed through and marked `no-store`.
 */
export function captureBody(req: Request, res: Response, onBody: (body: Buffer) => boolean): void {
  addEndStep(res, {
    end(ending) {
      if (res.statusCode === 200 && req.method !== 'HEAD' && ending.body && onBody(owned(ending.body))) {
        res.statusCode = 304;
        res.removeHeader('Content-Length');
        res.removeHeader('Content-Type');
        ending.body = undefined;
        return;
      }
      if (res.statusCode !== 200 && res.statusCode !== 304) res.setHeader('Cache-Control', 'no-store');
    },
  });
}

/**
 * The body as a buffer of its own, for a cache to keep: Express's small bodies are views into Node's shared 8 KiB
 * pool, and an entry holding one would keep the whole slab alive while a byte budget counts only the view's bytes.
 */
function owned(body: Buffer): Buffer {
  if (body.byteOffset === 0 && body.buffer.byteLength === body.length) return body;
  const copy = Buffer.allocUnsafeSlow(body.length);
  body.copy(copy);
  return copy;
}
