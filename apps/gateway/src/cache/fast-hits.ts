// A client read (REST or GraphQL) already cached, for an API key already authenticated, answered early.
import { clientCredentials, httpCredentials, type Authentication } from '@cp/auth';
import type { RateLimiter } from '@cp/edge';
import { sharedCacheable, type ApiKeyPrincipal } from '@cp/graphql';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Request, RequestHandler, Response } from 'express';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { assertJsonDepth, assertSafeGraphQLPayload } from '../http/input-guard';
import { edgeContext, requestLanguage } from '../http/request-scope';
import { cacheKey, graphqlKey, restKey } from './client-cache';
import type { EarlyAnswers } from './early-answer';
import { sendCached } from './http-caching';
import type { ReadCache } from './read-cache';

export interface FastHitOptions {
  cache?: ReadCache;
  /** `cached`: what the full chain's `authenticate` would answer, when that is a principal already in memory. */
  auth: Pick<Authentication, 'cached'>;
  /** Lends its connection to the batched `lastUsed` write only. */
  em: EntityManager;
  limiter: Pick<RateLimiter, 'admit'>;
  cdnMaxAge: number;
  /** How GraphQL answers a refusal (429) in its own shape. */
  onGraphQLError: (res: Response, err: unknown) => void;
  early: EarlyAnswers;
}

/** Early-read GraphQL bodies are small (a document and its variables); larger ones take the usual parser. */
const MAX_EARLY_BODY = 64 * 1024;
const PLAIN_JSON = /^application\/json\s*(;\s*charset="?utf-8"?\s*)?$/i;
const BODY_ERROR = Symbol('body error');
type PreRead = IncomingMessage & { body?: unknown; [BODY_ERROR]?: unknown };

/** `express.json()` (strict, with our depth check as its `verify`): objects and arrays only; its error types. */
function strictJson(raw: string): unknown {
  // body-parser decodes with iconv-lite, which drops a byte order mark.
  const text = raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw;
  assertJsonDepth(text);
  const first = /\S/.exec(text)?.[0];
  if (first !== '{' && first !== '[')
    throw Object.assign(new SyntaxError('Unexpected token in JSON'), { status: 400, type: 'entity.parse.failed' });
  try {
    return JSON.parse(text);
  } catch (err) {
    throw Object.assign(err as Error, { status: 400, type: 'entity.parse.failed' });
  }
}

/** What `graphqlInputGuard` checks; a body it would refuse goes to Express for that refusal. */
function safeGraphQLBody(body: unknown): boolean {
  try {
    assertSafeGraphQLPayload(body);
    return true;
  } catch {
    return false;
  }
}

/**
 * The same answer the full chain gives on a hit (same principal, same budget spent, same cache entry, same headers),
 * minus what a hit doesn't need. Anything else (no key, a key not in the principal cache, a miss) goes down the full
 * chain, which counts the miss and fills the cache.
 * - `listener` wraps the whole Express app: a REST GET hit, or a GraphQL POST hit (`graphqlPost`), never enters
 *   Express (its router walk over every route and its request/response setup would be a quarter of a hit's JavaScript).
 *   It does what the skipped middleware would have done for it: request metrics, request id and language, API
 *   headers; the input guard had passed this very URL when its answer was cached. A browser asking for HTML goes
 *   through Express (the docs pages negotiate there).
 * - `graphql` (GET, and POST bodies not read early) is mounted after the JSON body parser and the GraphQL input
 *   guard, and skips the context, the limits' document checks a cached document already passed, and Apollo.
 */
export function fastCachedReads(options: FastHitOptions): {
  listener(app: RequestListener): RequestListener;
  graphql: RequestHandler;
  parsedBody: RequestHandler;
} {
  const { cache } = options;
  const principalOf = (req: IncomingMessage): ApiKeyPrincipal | undefined => {
    if (!cache) return undefined;
    // The credentials the full chain reads (context.ts), answered only when the principal cache already holds them.
    const principal = options.auth.cached(options.em, clientCredentials(httpCredentials(req.headers)));
    // A preview key never reads the shared cache: it takes the full chain, which answers it privately.
    return sharedCacheable(principal) ? principal : undefined;
  };
  /**
   * A GraphQL POST with a known key and a small plain JSON body: the body is read here, so that a hit skips Express
   * entirely, as a REST hit does. Express gets every other outcome with `req.body` already set to what
   * `express.json()` would have made of it (strict JSON, the same depth check) or, for a body it would have refused,
   * the error it would have raised (`parsedBody` passes it on); body-parser leaves a finished request alone.
   */
  const graphqlPost = (req: IncomingMessage, res: ServerResponse, app: RequestListener) => {
    const principal = principalOf(req);
    const length = Number(req.headers['content-length']);
    const plain = PLAIN_JSON.test(req.headers['content-type'] ?? '') && req.headers['content-encoding'] === undefined;
    if (!principal || !plain || !(length > 0 && length <= MAX_EARLY_BODY)) return app(req, res);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    // An aborted upload: the connection is gone, nobody to answer.
    req.once('error', () => req.destroy());
    req.once('end', () => {
      const pre = req as PreRead;
      try {
        pre.body = strictJson(Buffer.concat(chunks).toString('utf8'));
      } catch (err) {
        pre.body = undefined;
        pre[BODY_ERROR] = err;
        return app(req, res);
      }
      const lang = requestLanguage(req);
      const key = graphqlKey(pre);
      const hit = key && safeGraphQLBody(pre.body) && cache!.peek(cacheKey(principal.projectId, lang, key));
      if (!hit) return app(req, res);
      options.early.answer(
        req,
        res,
        principal,
        'graphql',
        (response) => sendCached(pre as Request, response as Response, hit, options.cdnMaxAge),
        lang,
      );
    });
  };

  return {
    listener(app) {
      return (req, res) => {
        const url = req.url ?? '';
        // HEAD on a REST route is its GET with no body (RFC 9110): every layer (this cache, ETags, caching headers,
        // the route) sees GET, and Node, which decided when the response was made, sends no body.
        if (req.method === 'HEAD' && (url.startsWith('/api/v1/') || url.startsWith('/app/v1/'))) req.method = 'GET';
        if (req.method === 'POST' && url === '/graphql') return graphqlPost(req, res, app);
        const principal =
          req.method === 'GET' && url.startsWith('/api/v1/') && !req.headers.accept?.includes('html')
            ? principalOf(req)
            : undefined;
        if (!principal) return app(req, res);
        const lang = requestLanguage(req);
        const hit = cache!.peek(cacheKey(principal.projectId, lang, restKey(url)));
        if (!hit) return app(req, res);
        options.early.answer(
          req,
          res,
          principal,
          'rest',
          (response) => sendCached(req as Request, response as Response, hit, options.cdnMaxAge),
          lang,
        );
      };
    },
    /** First on /graphql: a body refused while it was read early reaches Express's error handler as the parser's error. */
    parsedBody(req, _res, next) {
      next((req as PreRead)[BODY_ERROR]);
    },
    graphql(req, res, next) {
      if (req.method !== 'GET' && req.method !== 'POST') return next();
      const principal = principalOf(req);
      const key = principal && graphqlKey(req);
      const hit = key && cache!.peek(cacheKey(principal.projectId, edgeContext().lang, key));
      if (!hit) return next();
      options.limiter
        .admit(principal, res, options.onGraphQLError)
        .then((admitted) => {
          if (admitted) sendCached(req, res, hit, options.cdnMaxAge);
        })
        .catch(next);
    },
  };
}
