// An admin's read of one entry, answered in front of Express with the bytes the full chain made for it, once one query
// shows the entry's row unchanged since.
import { clientCredentials, httpCredentials, type Authentication } from '@cp/auth';
import {
  authorizeClientRead,
  type Context,
  type ProjectDirectory,
  type RestRoute,
  type UserPrincipal,
} from '@cp/graphql';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { RequestHandler } from 'express';
import { LRUCache } from 'lru-cache';
import type { IncomingHttpHeaders, IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { requestLanguage } from '../http/request-scope';
import { captureBody } from './client-cache';
import type { EarlyAnswers } from './early-answer';
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
 * Headers that make the full chain answer differently (conditional requests, Idempotency-Key, an API key beside the token):
 * such requests take it, as does a browser asking for HTML (the docs negotiate there).
 */
const FULL_CHAIN_HEADERS = [
  'x-api-key',
  'idempotency-key',
  'if-match',
  'if-none-match',
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

/** What the front learned of a request it passed on: the full chain's answer is stored under `key` with `stamp`. */
interface Fill {
  key: string;
  stamp: string;
  userId: string;
}
const FILL = Symbol('admin read fill');
type Marked = IncomingMessage & { [FILL]?: Fill };

export interface AdminReadOptions {
  /** The admin REST route of `Query.content`. */
  route: RestRoute;
  auth: Pick<Authentication, 'cached'>;
  /** The root EntityManager: the stamp query only borrows a connection. */
  em: EntityManager;
  projects: ProjectDirectory;
  early: EarlyAnswers;
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
 * the row as of the stamp or later. Authentication, authorization (the same `authorizeClientRead` the resolver calls,
 * with the same principal cache and project directory) and the rate limit run on every request. Anything else
 * (an unknown token, a refusal, no row, a changed row) takes the full chain, which answers it and fills the entry.
 */
export function adminReads(options: AdminReadOptions): {
  listener(next: RequestListener): RequestListener;
  /** In `/app/v1`'s chain after authentication and the rate limit: stores what the full chain answered. */
  fill: RequestHandler;
  stats(): AdminReadStats;
} {
  const pattern = entryReadPattern(options.route);
  const counters = { hits: 0, misses: 0 };
  const lru = new LRUCache<string, Entry>({
    // CACHE_MAX_BYTES takes any positive integer: a quarter of a tiny one may round to 0, which lru-cache refuses.
    maxSize: Math.max(1, options.maxBytes),
    ttl: TTL_MS,
    sizeCalculation: (entry, key) => entry.body.length + key.length * 2 + ENTRY_OVERHEAD,
  });

  const stamps = new RowStamps(options.em);

  /** Resolves false when the full chain should answer instead. */
  const answer = async (
    req: IncomingMessage,
    res: ServerResponse,
    principal: UserPrincipal,
    { organizationId, projectId, id }: EntryRead,
  ): Promise<boolean> => {
    const scope = { organizationId, projectId };
    try {
      // Authorization reads the principal and the project directory only, never the request's EntityManager.
      const context = { principal, projects: options.projects } as Context;
      await authorizeClientRead(context, scope, 'content');
    } catch {
      return false;
    }
    const stamp = await stamps.of(organizationId, projectId, id);
    if (stamp === undefined) return false;
    const key = `${principal.organizationId}\0${principal.userId}\0${requestLanguage(req)}\0${req.headers.accept ?? ''}\0${req.url}`;
    const entry = lru.get(key);
    if (entry?.stamp !== stamp) {
      counters.misses++;
      (req as Marked)[FILL] = { key, stamp, userId: principal.userId };
      return false;
    }
    counters.hits++;
    // `/app/v1`'s own header (api-headers.ts), on the answer and on a refusal alike.
    res.setHeader('Cache-Control', 'no-store');
    options.early.answer(req, res, principal, 'rest', (response) => {
      response.setHeader('ETag', entry.etag);
      response.setHeader('Content-Type', entry.contentType);
      response.setHeader('Content-Length', entry.body.length);
      response.end(entry.body);
    });
    return true;
  };

  return {
    listener(next) {
      return (req, res) => {
        const read = req.method === 'GET' ? pattern.exec(req.url ?? '')?.groups : undefined;
        if (!read || !eligible(req.headers)) return next(req, res);
        const principal = options.auth.cached(options.em, clientCredentials(httpCredentials(req.headers)));
        if (principal?.kind !== 'user') return next(req, res);
        // A failed stamp query (the database down, say) is the full chain's to answer, with its own error.
        answer(req, res, principal, read as unknown as EntryRead).then(
          (answered) => answered || next(req, res),
          () => next(req, res),
        );
      };
    },
    fill(req, res, next) {
      const fill = (req as Marked)[FILL];
      // The full chain authenticated the same credentials; a different principal would be a defect, not a fill.
      const principal = (res.locals.context as Context | undefined)?.principal;
      if (fill && principal?.kind === 'user' && principal.userId === fill.userId) {
        captureBody(req, res, (body) => {
          const etag = res.getHeader('etag');
          if (typeof etag === 'string') {
            const contentType = String(res.getHeader('content-type') ?? 'application/json; charset=utf-8');
            lru.set(fill.key, { stamp: fill.stamp, body, etag, contentType });
          }
          return false;
        });
      }
      next();
    },
    stats: () => ({ ...counters, entries: lru.size }),
  };
}

function eligible(headers: IncomingHttpHeaders): boolean {
  if (headers.authorization === undefined || headers.accept?.includes('html')) return false;
  return FULL_CHAIN_HEADERS.every((name) => headers[name] === undefined);
}
