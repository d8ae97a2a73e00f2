// An admin's read of one entry in `/app/v1`'s read-cache stage: a conditional read answered 304 by its revision, or the
// bytes execution made for it replayed, once one query shows the entry's row unchanged since.
import { authorizeClientRead, type Context, type RestRoute } from '@cp/graphql';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { RequestHandler } from 'express';
import fresh from 'fresh';
import { LRUCache } from 'lru-cache';
import type { IncomingHttpHeaders } from 'node:http';
import { edgeContext } from '../http/request-scope';
import { captureBody } from './client-cache';
import { RowStamps } from './row-stamps';

/**
 * The admin route of one entry (`Query.content`'s, `/organizations/:organizationId/projects/:projectId/content/:id`)
 * as a pattern of whole URLs: no query string, no trailing slash, ids as ours are written. Anything else takes the
 * full chain.
 */
function entryReadPattern(route: RestRoute): RegExp {
  const path = route.path.replaceAll(/:(\w+)/g, (_, name: string) => `(?<${name}>[\\w-]{1,64})`);
  return new RegExp(`^/app/v1${path}$`);
}

interface EntryRead {
  organizationId: string;
  projectId: string;
  id: string;
}

/**
 * Headers that make execution answer differently (other conditions, Idempotency-Key, an API key beside the token):
 * such requests go on to it, as does a browser asking for HTML (the docs negotiate there). `If-None-Match` is this
 * stage's own: the entry's `ETag` is its revision, which the stamp query reads.
 */
const FULL_CHAIN_HEADERS = [
  'x-api-key',
  'idempotency-key',
  'if-match',
  'if-modified-since',
  'if-unmodified-since',
  'if-range',
  'range',
] as const;

/** An entry lives at most this long, used or not. */
const TTL_MS = 10 * 60_000;
/** Fixed per-entry overhead counted on top of key and body. */
const ENTRY_OVERHEAD = 256;

interface Entry {
  stamp: string;
  body: Buffer;
  etag: string;
  contentType: string;
}

export interface AdminReadOptions {
  /** The admin REST route of `Query.content`. */
  route: RestRoute;
  /** The root EntityManager: the stamp query only borrows a connection. */
  em: EntityManager;
  maxBytes: number;
}

export interface AdminReadStats {
  hits: number;
  /** Reads passed to the full chain with a stamp: no entry yet, or the row changed since it was stored. */
  misses: number;
  entries: number;
}

/**
 * Strictly consistent by construction: every answer checks the row in the database (one primary-key lookup, any
 * replica's commit included), and a stored answer is one the full chain gave after that stamp was read, so it shows
 * the row as of the stamp or later. It runs after authentication and the rate limit, and authorizes with the same
 * `authorizeClientRead` the resolver calls. Anything else (a refusal, no row, a changed row, a failed stamp query)
 * goes on to execution, which answers it; a 200 from there is stored under the stamp read before it.
 */
export function adminReads(options: AdminReadOptions): { serve: RequestHandler; stats(): AdminReadStats } {
  const pattern = entryReadPattern(options.route);
  const counters = { hits: 0, misses: 0 };
  const lru = new LRUCache<string, Entry>({
    // CACHE_MAX_BYTES takes any positive integer: a quarter of a tiny one may round to 0, which lru-cache refuses.
    maxSize: Math.max(1, options.maxBytes),
    ttl: TTL_MS,
    sizeCalculation: (entry, key) => entry.body.length + key.length * 2 + ENTRY_OVERHEAD,
  });
  const stamps = new RowStamps(options.em);

  /** The stamp of the entry a request reads, when this stage may answer it; undefined sends it on. */
  const stampOf = async (context: Context, { organizationId, projectId, id }: EntryRead) => {
    try {
      await authorizeClientRead(context, { organizationId, projectId }, 'content');
    } catch {
      return undefined;
    }
    return stamps.of(organizationId, projectId, id);
  };

  return {
    serve(req, res, next) {
      const read = req.method === 'GET' ? pattern.exec(req.originalUrl)?.groups : undefined;
      const context = res.locals.context as Context | undefined;
      const principal = context?.principal;
      if (!read || !context || principal?.kind !== 'user' || !eligible(req.headers)) return next();
      stampOf(context, read as unknown as EntryRead).then(
        (stamp) => {
          if (stamp === undefined) return next();
          // The answer's `ETag` is the revision (rest.ts): a client holding it gets 304 after the one stamp query,
          // decided as Express decides it after execution (`fresh`: `Cache-Control: no-cache` asks for the whole answer).
          const etag = `"${stamp.slice(stamp.indexOf('/') + 1)}"`;
          if (fresh(req.headers, { etag })) {
            counters.hits++;
            res.setHeader('ETag', etag);
            res.statusCode = 304;
            res.end();
            return;
          }
          const key = `${principal.organizationId}\0${principal.userId}\0${edgeContext().lang}\0${req.headers.accept ?? ''}\0${req.originalUrl}`;
          const entry = lru.get(key);
          if (entry?.stamp === stamp) {
            counters.hits++;
            res.setHeader('ETag', entry.etag);
            res.setHeader('Content-Type', entry.contentType);
            res.setHeader('Content-Length', entry.body.length);
            res.end(entry.body);
            return;
          }
          counters.misses++;
          captureBody(req, res, (body) => {
            const etag = res.getHeader('etag');
            if (typeof etag === 'string') {
              const contentType = String(res.getHeader('content-type') ?? 'application/json; charset=utf-8');
              lru.set(key, { stamp, body, etag, contentType });
            }
            return false;
          });
          next();
        },
        () => next(),
      );
    },
    stats: () => ({ ...counters, entries: lru.size }),
  };
}

function eligible(headers: IncomingHttpHeaders): boolean {
  if (headers.accept?.includes('html')) return false;
  return FULL_CHAIN_HEADERS.every((name) => headers[name] === undefined);
}
