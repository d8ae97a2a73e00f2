// Issue 12: a client read (REST or GraphQL) already cached, for an API key already authenticated, answered early.
import type { RateLimiter } from '@cp/edge';
import type { ApiKeyService } from '@cp/subgraph-access';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { NextFunction, Request, Response } from 'express';
import { edgeContext } from '../request-scope';
import { cacheKey, graphqlKey, restKey } from './client-cache';
import { sendCached } from './http-caching';
import type { ReadCache } from './read-cache';

export interface FastHitOptions {
  cache?: ReadCache;
  apiKeys: Pick<ApiKeyService, 'cachedPrincipal'>;
  /** Lends its connection to the batched `lastUsed` write only. */
  em: EntityManager;
  limiter: Pick<RateLimiter, 'admit'>;
  cdnMaxAge: number;
  /** How REST and GraphQL answer a refusal (429) in their own shapes. */
  onError: { rest: (res: Response, err: unknown) => void; graphql: (res: Response, err: unknown) => void };
}

type Middleware = (req: Request, res: Response, next: NextFunction) => void;

/**
 * The same answer the full chain gives on a hit (same principal, same budget spent, same cache entry, same headers),
 * minus what a hit doesn't need: route matching across every plain route, a forked EntityManager, the context object,
 * the GraphQL document checks a cached document already passed. Anything else (no key, a key not in the principal
 * cache, a miss) goes down the full chain, which counts the miss and fills the cache. `rest` is mounted after request
 * metrics, the request scope, the input guard and the API headers; `graphql` after the JSON body parser and the
 * GraphQL input guard: those apply to hits as before.
 */
export function fastCachedReads(options: FastHitOptions): { rest: Middleware; graphql: Middleware } {
  const { cache } = options;
  const answer = (req: Request, res: Response, next: NextFunction, family: 'rest' | 'graphql', request: () => string | undefined) => {
    const presented = req.headers['x-api-key'];
    if (!cache || typeof presented !== 'string' || req.headers.authorization !== undefined) return next();
    const principal = options.apiKeys.cachedPrincipal(options.em, presented);
    const key = principal && request();
    const hit = key && cache.peek(cacheKey(principal.projectId, edgeContext().lang, key));
    if (!hit) return next();
    options.limiter
      .admit(principal, res, options.onError[family])
      .then((admitted) => {
        if (admitted) sendCached(req, res, hit, options.cdnMaxAge);
      })
      .catch(next);
  };
  return {
    rest(req, res, next) {
      if (req.method !== 'GET' || !req.originalUrl.startsWith('/api/v1/')) return next();
      answer(req, res, next, 'rest', () => restKey(req.originalUrl));
    },
    graphql(req, res, next) {
      if (req.method !== 'GET' && req.method !== 'POST') return next();
      answer(req, res, next, 'graphql', () => graphqlKey(req));
    },
  };
}
