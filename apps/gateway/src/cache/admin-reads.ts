// An admin's reads of content in `/app/v1`'s read-cache stage: an entry read answered 304 by its revision, and an
// entry or list read answered with the bytes execution made for it, once one query shows that what it shows is
// unchanged since (the entry's row, or for a list the project's content).
import { authorizeClientRead, type Context, type RestRoute } from '@cp/graphql';
import type { EntityManager } from '@mikro-orm/postgresql';
import { edgeContext, notModified, respond } from '@cp/edge';
import type { RequestHandler } from 'express';
import { LRUCache } from 'lru-cache';
import type { IncomingHttpHeaders } from 'node:http';
import { captureBody } from './client-cache';
import { RowStamps } from './row-stamps';

/**
 * An admin route (`Query.content`'s `/organizations/:organizationId/projects/:projectId/content/:id`, or
 * `Query.contents`'s list) as a pattern of whole URLs: ids as ours are written, no trailing slash, and a query string
 * only where `query` allows one (a list's filters, sort and page). Anything else takes the full chain.
 */
function readPattern(route: RestRoute, query: boolean): RegExp {
  const path = route.path.replaceAll(/:(\w+)/g, (_, name: string) => `(?<${name}>[\\w-]{1,64})`);
  return new RegExp(`^/app/v1${path}${query ? '(?:\\?.*)?' : ''}$`);
}

interface Read {
  organizationId: string;
  projectId: string;
  /** An entry's; a list has none. */
  id?: string;
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
  /** The admin REST routes of `Query.content` and `Query.contents`. */
  routes: { entry: RestRoute; list: RestRoute };
  /** The root EntityManager: the stamp query only borrows a connection. */
  em: EntityManager;
  maxBytes: number;
}

export interface AdminReadStats {
  hits: number;
  /** Reads passed to the full chain with a stamp: nothing stored yet, or a change since it was stored. */
  misses: number;
  entries: number;
}

/**
 * Strictly consistent by construction: every answer checks the database (an entry's row by its primary key, a list's
 * project by two index lookups in the event log; any replica's commit included), and a stored answer is one the full
 * chain gave after that stamp was read, so it shows the data as of the stamp or later. It runs after authentication and the rate limit, and authorizes with the same
 * `authorizeClientRead` the resolver calls. Anything else (a refusal, no row, a changed row, a failed stamp query)
 * goes on to execution, which answers it; a 200 from there is stored under the stamp read before it.
 */
export function adminReads(options: AdminReadOptions): { serve: RequestHandler; stats(): AdminReadStats } {
  const entryPattern = readPattern(options.routes.entry, false);
  const listPattern = readPattern(options.routes.list, true);
  const counters = { hits: 0, misses: 0 };
  const lru = new LRUCache<string, Entry>({
    // CACHE_MAX_BYTES takes any positive integer: a quarter of a tiny one may round to 0, which lru-cache refuses.
    maxSize: Math.max(1, options.maxBytes),
    ttl: TTL_MS,
    sizeCalculation: (entry, key) => entry.body.length + key.length * 2 + ENTRY_OVERHEAD,
  });
  const entries = RowStamps.entries(options.em);
  const projects = RowStamps.projects(options.em);

  /** The stamp of what a request reads, when this stage may answer it; undefined sends it on. */
  const stampOf = async (context: Context, { organizationId, projectId, id }: Read) => {
    try {
      await authorizeClientRead(context, { organizationId, projectId }, 'content');
    } catch {
      return undefined;
    }
    return id === undefined ? projects.of(organizationId, projectId) : entries.of(organizationId, projectId, id);
  };

  return {
    serve(req, res, next) {
      const url = req.originalUrl;
      const read = req.method === 'GET' ? (entryPattern.exec(url) ?? listPattern.exec(url))?.groups : undefined;
      const context = res.locals.context as Context | undefined;
      const principal = context?.principal;
      if (!read || !context || principal?.kind !== 'user' || !eligible(req.headers)) return next();
      stampOf(context, read as unknown as Read).then(
        (stamp) => {
          if (stamp === undefined) return next();
          const key = `${principal.organizationId}\0${principal.userId}\0${edgeContext().lang}\0${req.headers.accept ?? ''}\0${url}`;
          const stored = lru.get(key);
          const current = stored?.stamp === stamp ? stored : undefined;
          // An entry's `ETag` is its revision (the REST handler's `ETag`), known from the stamp alone; a list's is the one execution
          // gave its stored answer. A client holding it gets 304, by the rule execution's answer would follow.
          const etag = read.id === undefined ? current?.etag : `"${stamp.slice(stamp.indexOf('/') + 1)}"`;
          if (etag !== undefined && notModified(req, etag)) {
            counters.hits++;
            res.setHeader('ETag', etag);
            res.statusCode = 304;
            return respond(res);
          }
          if (current) {
            counters.hits++;
            res.setHeader('ETag', current.etag);
            res.setHeader('Content-Type', current.contentType);
            res.setHeader('Content-Length', current.body.length);
            return respond(res, current.body, 'end');
          }
          counters.misses++;
          captureBody(req, res, (body) => {
            // An entry's is its revision (the REST handler's); a list's is the one Express gives the body, set here so that
            // the stored answer and this one carry the same.
            let etag = res.getHeader('etag');
            const expressETag =
              etag === undefined && (req.app.get('etag fn') as ((body: Buffer) => string) | undefined);
            if (expressETag) res.setHeader('ETag', (etag = expressETag(body)));
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
