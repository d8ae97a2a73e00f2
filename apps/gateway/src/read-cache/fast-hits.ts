// Issue 12: a client read (REST or GraphQL) already cached, for an API key already authenticated, answered early.
import type { Logger } from '@cp/config';
import type { RateLimiter } from '@cp/edge';
import { toErrorEnvelope } from '@cp/errors';
import { observeRequest } from '@cp/metrics';
import type { ApiKeyPrincipal } from '@cp/graphql';
import type { ApiKeyService } from '@cp/subgraph-access';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { setApiHeaders } from '../api-headers';
import { edgeContext, requestFacts, requestLanguage } from '../request-scope';
import { cacheKey, graphqlKey, restKey } from './client-cache';
import { sendCached } from './http-caching';
import type { CachedResponse, ReadCache } from './read-cache';

export interface FastHitOptions {
  cache?: ReadCache;
  apiKeys: Pick<ApiKeyService, 'cachedPrincipal'>;
  /** Lends its connection to the batched `lastUsed` write only. */
  em: EntityManager;
  limiter: Pick<RateLimiter, 'admit'>;
  cdnMaxAge: number;
  /** How GraphQL answers a refusal (429) in its own shape. */
  onGraphQLError: (res: Response, err: unknown) => void;
  logger: Logger;
}

type Answer = (res: Response, err: unknown) => void;

/**
 * The same answer the full chain gives on a hit (same principal, same budget spent, same cache entry, same headers),
 * minus what a hit doesn't need. Anything else (no key, a key not in the principal cache, a miss) goes down the full
 * chain, which counts the miss and fills the cache.
 * - `rest` wraps the whole Express app: a REST hit never enters Express (its router walk over every route and its
 *   request/response setup were a quarter of a hit's JavaScript). It does what the skipped middleware would have done
 *   for it: request metrics, request id and language, API headers; the input guard had passed this very URL when
 *   its answer was cached. A browser asking for HTML goes through Express (the docs pages negotiate there).
 * - `graphql` is mounted after the JSON body parser and the GraphQL input guard, and skips the context, the limits'
 *   document checks a cached document already passed, and Apollo.
 */
export function fastCachedReads(options: FastHitOptions): { rest(app: RequestListener): RequestListener; graphql: RequestHandler } {
  const { cache } = options;
  const principalOf = (req: IncomingMessage): ApiKeyPrincipal | undefined => {
    const presented = req.headers['x-api-key'];
    if (!cache || typeof presented !== 'string' || req.headers.authorization !== undefined) return undefined;
    return options.apiKeys.cachedPrincipal(options.em, presented);
  };
  const answer = (req: IncomingMessage, res: ServerResponse, principal: ApiKeyPrincipal, hit: CachedResponse, onError: Answer, onFailure: (err: unknown) => void) => {
    // Express's types, Node's objects: `admit` and `sendCached` only use what `http` provides (headers, status, end).
    const [request, response] = [req as Request, res as Response];
    options.limiter
      .admit(principal, response, onError)
      .then((admitted) => {
        if (admitted) sendCached(request, response, hit, options.cdnMaxAge);
      })
      .catch(onFailure);
  };

  return {
    rest(app) {
      return (req, res) => {
        const url = req.url ?? '';
        const accept = req.headers.accept;
        const principal = req.method === 'GET' && url.startsWith('/api/v1/') && !accept?.includes('html') ? principalOf(req) : undefined;
        if (!principal) return app(req, res);
        const lang = requestLanguage(req);
        const hit = cache!.peek(cacheKey(principal.projectId, lang, restKey(url)));
        if (!hit) return app(req, res);
        const facts = requestFacts(req, res, lang);
        observeRequest(req, res);
        setApiHeaders(res, true);
        const refuse: Answer = (response, err) => {
          const { status, body } = toErrorEnvelope(err, { ...facts, variablesFrom: 'query' });
          if (status >= 500) options.logger.error({ err, requestId: facts.requestId }, 'unexpected error');
          response.statusCode = status;
          response.setHeader('Content-Type', 'application/json; charset=utf-8');
          response.end(JSON.stringify(body));
        };
        answer(req, res, principal, hit, refuse, (err) => refuse(res as Response, err));
      };
    },
    graphql(req, res, next) {
      if (req.method !== 'GET' && req.method !== 'POST') return next();
      const principal = principalOf(req);
      const key = principal && graphqlKey(req);
      const hit = key && cache!.peek(cacheKey(principal.projectId, edgeContext().lang, key));
      if (!hit) return next();
      answer(req, res, principal, hit, options.onGraphQLError, next);
    },
  };
}
