// Serves stored bytes the way a CDN origin should: strong ETag, 304, Range, a year of caching, no sniffing.
import { notModified } from '@cp/edge';
import { AppError } from '@cp/errors';
import type { Request, Response } from 'express';
import parseRange from 'range-parser';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ACTIVE_TYPES } from './sniff';
import type { AssetStorage, ByteRange } from './storage';

export interface Deliverable {
  key: string;
  /** SHA-256 hex of the bytes: a strong validator because the bytes never change. */
  checksum: string;
  type: string;
  name: string;
}

/**
 * A 304 is answered from the row's checksum alone: the store is not asked. Otherwise a plain GET is one read of the
 * store; a Range first asks the size (metadata only), then reads just that range; a HEAD asks the size only.
 */
export async function deliver(req: Request, res: Response, storage: AssetStorage, file: Deliverable): Promise<void> {
  const etag = `"${file.checksum}"`;
  if (notModified(req, etag)) {
    // A 304 carries the validator and caching rules only, no representation metadata (RFC 9110 §15.4.5).
    setCaching(res, etag);
    res.status(304).end();
    return;
  }
  const part = await requestedRange(req, res, storage, file, etag);
  // HEAD asks the store for the size alone, never for the bytes.
  const opened = req.method === 'HEAD' ? await storage.stat(file.key) : await storage.open(file.key, part);
  if (!opened) throw notFound(res, file);
  setFileHeaders(res, file, etag);
  res.setHeader('Accept-Ranges', 'bytes');
  if (part) {
    res.status(206);
    res.setHeader('Content-Range', `bytes ${part.start}-${part.end}/${opened.size}`);
  }
  res.setHeader('Content-Length', part ? part.end - part.start + 1 : opened.size);
  const body = (opened as { body?: Readable }).body;
  if (!body) {
    res.end();
    return;
  }
  // A store failing mid-transfer, or a client gone, cuts the response short: the client sees a truncated body
  // (fewer bytes than Content-Length), never bytes that pass for the whole file.
  await pipeline(body, res).catch(() => undefined);
}

function setCaching(res: Response, etag: string): void {
  res.setHeader('ETag', etag);
  res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
}

function setFileHeaders(res: Response, file: Deliverable, etag: string): void {
  setCaching(res, etag);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Type', file.type);
  // Types a browser would execute are downloaded, never rendered on our origin.
  const active = ACTIVE_TYPES.has(file.type);
  res.setHeader(
    'Content-Disposition',
    `${active ? 'attachment' : 'inline'}; filename*=UTF-8''${encodeURIComponent(file.name)}`,
  );
  if (active) res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
}

/**
 * The one range to send, or undefined for the whole file: as HTTP allows, a malformed or multi-range header, another
 * unit, or an `If-Range` that no longer matches is answered with the whole file. A range past the end is 416.
 */
async function requestedRange(
  req: Request,
  res: Response,
  storage: AssetStorage,
  file: Deliverable,
  etag: string,
): Promise<ByteRange | undefined> {
  const header = req.header('range');
  if (!header) return undefined;
  const ifRange = req.header('if-range');
  if (ifRange && ifRange.trim() !== etag) return undefined;
  const found = await storage.stat(file.key);
  if (!found) throw notFound(res, file);
  const ranges = parseRange(found.size, header, { combine: true });
  if (ranges === -1) {
    // The error answer must not look like the cacheable, immutable bytes.
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Content-Range', `bytes */${found.size}`);
    return Promise.reject(new AppError('RANGE_NOT_SATISFIABLE', undefined, { range: header }));
  }
  if (ranges === -2 || ranges.type !== 'bytes' || ranges.length !== 1) return undefined;
  return ranges[0];
}

function notFound(res: Response, file: Deliverable) {
  res.setHeader('Cache-Control', 'no-store');
  return new AppError('NOT_FOUND', 'File not found.', { resource: 'Asset', name: file.name });
}
