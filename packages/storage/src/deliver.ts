// Serves stored bytes the way a CDN origin should: strong ETag, 304, Range, a year of caching, no sniffing.
import { AppError } from '@cp/errors';
import type { Request, Response } from 'express';
import { ACTIVE_TYPES } from './sniff';
import type { AssetStorage } from './storage';

export interface Deliverable {
  key: string;
  /** SHA-256 hex of the bytes: a strong validator because the bytes never change. */
  checksum: string;
  type: string;
  name: string;
}

export async function deliver(req: Request, res: Response, storage: AssetStorage, file: Deliverable): Promise<void> {
  const etag = `"${file.checksum}"`;
  res.setHeader('ETag', etag);
  res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Type', file.type);
  // Types a browser would execute are downloaded, never rendered on our origin.
  const active = ACTIVE_TYPES.has(file.type);
  res.setHeader(
    'Content-Disposition',
    `${active ? 'attachment' : 'inline'}; filename*=UTF-8''${encodeURIComponent(file.name)}`,
  );
  if (active) res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
  const ifNoneMatch = req.header('if-none-match');
  if (
    ifNoneMatch &&
    (ifNoneMatch.trim() === '*' || ifNoneMatch.split(',').some((t) => t.trim().replace(/^W\//, '') === etag))
  ) {
    res.status(304).end();
    return;
  }
  await new Promise<void>((resolve, reject) =>
    res.sendFile(
      storage.path(file.key),
      { etag: false, lastModified: false, cacheControl: false, acceptRanges: true },
      (err) => (err && !res.headersSent ? reject(deliveryError(res, err, file)) : resolve()),
    ),
  );
}

/**
 * `send` reports an unsatisfiable Range as status 416 and a vanished file as 404; both become the envelope instead of
 * a 500. The error answer must not look like the cacheable, immutable bytes. A client that disconnected mid-transfer
 * (headers already sent) ends quietly.
 */
function deliveryError(
  res: Response,
  err: Error & { status?: number; statusCode?: number; headers?: Record<string, string> },
  file: Deliverable,
) {
  for (const header of ['ETag', 'Cache-Control', 'Content-Disposition', 'Content-Security-Policy', 'Content-Type'])
    res.removeHeader(header);
  res.setHeader('Cache-Control', 'no-store');
  const status = err.status ?? err.statusCode;
  if (status === 416) {
    const range = err.headers?.['Content-Range'];
    if (range) res.setHeader('Content-Range', range);
    return new AppError('RANGE_NOT_SATISFIABLE', undefined, { range: res.req.headers.range ?? null });
  }
  if (status === 404) return new AppError('NOT_FOUND', 'File not found.', { resource: 'Asset', name: file.name });
  if (status !== undefined && status >= 400 && status < 500)
    return new AppError('BAD_REQUEST', 'The request for the file is malformed.', { status });
  return err;
}
