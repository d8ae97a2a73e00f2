// HTTP caching of client responses: strong ETag, If-None-Match → 304, Cache-Control/Vary for shared caches, purge tags.
import { hash } from 'node:crypto';
import { notModified, respond } from '@cp/edge';
import type { Request, Response } from 'express';
import type { CachedResponse } from './read-cache';

/** Strong validator of a body: equal bytes, equal tag, on every replica. */
export function etagOf(body: Buffer): string {
  return `"${hash('sha256', body, 'base64url')}"`;
}

/**
 * Responses depend on the API key (its project, and whether it is still valid), so a shared cache must key on it:
 * `Vary: x-api-key` — without it a CDN would hand a key holder's response to callers without any key.
 * With `cdnMaxAge` 0 (the default) a CDN keeps the response but revalidates every use (`no-cache`): the origin
 * authenticates the key and answers 304 from its own cache, so a revoked key is refused at once. A positive
 * `cdnMaxAge` lets the CDN answer alone for that long (purge by `Surrogate-Key` on events; a revoked key may read
 * cached published data until then).
 */
export function cacheControl(cdnMaxAge: number): string {
  return cdnMaxAge > 0 ? `public, max-age=0, s-maxage=${cdnMaxAge}` : 'public, no-cache';
}

export const VARY = 'x-api-key, Accept-Language, Accept';

/** Purge tags: the project (every event purges it) and the resource family / resource the route names. */
export function surrogateKeys(projectId: string, resourcePath: string[]): string {
  const safe = (s: string) => /^[\w.-]{1,128}$/.test(s);
  const keys = [`cp-project-${projectId}`];
  const [family, id] = resourcePath;
  if (family && safe(family)) keys.push(`cp-project-${projectId}-${family}`);
  if (family && id && safe(family) && safe(id)) keys.push(`cp-${family}-${id}`);
  return keys.filter(safe).join(' ');
}

/** Writes a cacheable response (from the cache or just produced): validators, caching headers, 304 when fresh. */
export function applyCachingHeaders(
  res: Response,
  response: CachedResponse,
  cdnMaxAge: number,
  state: 'HIT' | 'MISS' | 'BYPASS',
): void {
  res.setHeader('ETag', response.etag);
  res.setHeader('Cache-Control', cacheControl(cdnMaxAge));
  res.setHeader('Vary', VARY);
  res.setHeader('Surrogate-Key', response.surrogateKeys);
  res.setHeader('Cache-Tag', response.surrogateKeys.replaceAll(' ', ','));
  res.setHeader('X-Cache', state);
}

/** A cache hit: no body when the client's copy is current. */
export function sendCached(req: Request, res: Response, response: CachedResponse, cdnMaxAge: number): void {
  applyCachingHeaders(res, response, cdnMaxAge, 'HIT');
  if (notModified(req, response.etag)) {
    res.statusCode = 304;
    return respond(res);
  }
  res.statusCode = 200;
  res.setHeader('Content-Type', response.contentType);
  res.setHeader('Content-Length', response.body.length);
  respond(res, response.body, 'end');
}
