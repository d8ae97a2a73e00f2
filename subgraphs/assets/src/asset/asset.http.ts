// The two HTTP routes that are not GraphQL: multipart upload (D8) and CDN delivery with ETag, Range and safe headers.
import { AppError } from '@cp/errors';
import { authorizeProject, type Context } from '@cp/graphql';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Request, Response } from 'express';
import { Asset } from './asset.entity';
import type { AssetService } from './asset.service';
import { assetUrl } from './asset-url';
import { ACTIVE_TYPES } from './sniff';
import { storageKey } from './storage';

/**
 * The REST shape of an asset, as `GET …/assets/{id}` answers it through GraphQL (a black-box test keeps the two
 * equal). Upload can't go through the gateway's JSON execution, so the upload route renders it here.
 */
export function assetJson(asset: Asset, cdnUrl: string) {
  const { id, organizationId, projectId, name, type, size, checksum, status, tags, folderId, metadata, createdAt, updatedAt } = asset;
  return {
    id,
    organizationId,
    projectId,
    name,
    type,
    size,
    checksum,
    status,
    tags,
    folderId: folderId ?? null,
    metadata,
    createdAt: createdAt.toISOString(),
    updatedAt: updatedAt.toISOString(),
    url: assetUrl(cdnUrl, asset),
    createdBy: asset.createdById,
  };
}

export function uploadHandler(service: AssetService, cdnUrl: string) {
  return async (req: Request, res: Response) => {
    const ctx = res.locals.context as Context;
    const scope = { organizationId: String(req.params.organizationId), projectId: String(req.params.projectId) };
    const user = await authorizeProject(ctx, scope, 'assets', 'create');
    const asset = await service.upload(ctx.em, scope, req, user.userId);
    res.status(201).json(assetJson(asset, cdnUrl));
  };
}

/** Immutable bytes: a strong ETag (the sha256), a year of caching, ranges; active types download instead of running. */
export function cdnHandler(orm: MikroORM, service: AssetService) {
  return async (req: Request, res: Response) => {
    const { organizationId, projectId, assetId } = req.params as Record<string, string>;
    const asset = await orm.em.fork().findOne(Asset, { id: assetId, organizationId, projectId, status: 'active' });
    const key = asset && storageKey(asset);
    if (!asset || !key || !(await service.storage.exists(key))) throw new AppError('NOT_FOUND', 'Asset not found.', { resource: 'Asset', id: assetId });
    const etag = `"${asset.checksum}"`;
    res.setHeader('ETag', etag);
    res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Content-Type', asset.type);
    const disposition = ACTIVE_TYPES.has(asset.type) ? 'attachment' : 'inline';
    res.setHeader('Content-Disposition', `${disposition}; filename*=UTF-8''${encodeURIComponent(asset.name)}`);
    if (ACTIVE_TYPES.has(asset.type)) res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
    const ifNoneMatch = req.header('if-none-match');
    if (ifNoneMatch && (ifNoneMatch.trim() === '*' || ifNoneMatch.split(',').some((t) => t.trim().replace(/^W\//, '') === etag))) {
      res.status(304).end();
      return;
    }
    await new Promise<void>((resolve, reject) =>
      res.sendFile(service.storage.path(key), { etag: false, lastModified: false, cacheControl: false, acceptRanges: true }, (err) =>
        err && !res.headersSent ? reject(err) : resolve(),
      ),
    );
  };
}
