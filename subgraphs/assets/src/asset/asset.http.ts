// Handlers of the two HTTP routes (declared in asset.http-routes.ts): multipart upload and CDN delivery.
import { sqlProjectDirectory } from '@cp/db';
import { AppError } from '@cp/errors';
import { authorizeProject, type Context } from '@cp/graphql';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Request, Response } from 'express';
import { Asset } from './asset.entity';
import type { AssetService } from './asset.service';
import { assetUrl } from './asset-url';
import { deliver, parseImageParams, resolveTransform, storageKey, variantsKey, type ImageVariants } from '@cp/storage';
import { respond } from '@cp/edge';

/**
 * The REST shape of an asset, as `GET …/assets/{id}` answers it through GraphQL (a black-box test keeps the two
 * equal). Upload can't go through the gateway's JSON execution, so the upload route renders it here.
 */
export function assetJson(asset: Asset, cdnUrl: string) {
  const {
    id,
    organizationId,
    projectId,
    name,
    type,
    size,
    checksum,
    status,
    tags,
    folderId,
    metadata,
    createdAt,
    updatedAt,
  } = asset;
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
    respond(res.status(201).type('application/json'), JSON.stringify(assetJson(asset, cdnUrl)));
  };
}

/**
 * Immutable bytes: a strong ETag (the sha256), a year of caching, ranges; active types download instead of running.
 * With image parameters the same, for the stored variant: its own ETag, `Vary: Accept` when `fm=auto`.
 */
export function cdnHandler(orm: MikroORM, service: AssetService, images: ImageVariants) {
  const projects = sqlProjectDirectory(orm);
  // A deleted project's assets are gone with it (its keys are revoked, its admins can no longer reach them).
  const find = async (req: Request) => {
    const { organizationId, projectId, assetId } = req.params as Record<string, string>;
    if (!(await projects.exists(organizationId, projectId))) return null;
    return orm.em.fork().findOne(Asset, { id: assetId, organizationId, projectId, status: 'active' });
  };
  const notFound = (req: Request) =>
    new AppError('NOT_FOUND', 'Asset not found.', { resource: 'Asset', id: req.params.assetId });
  return async (req: Request, res: Response) => {
    // Checked before the lookup: a malformed URL is the same 400 whether or not the asset exists.
    const params = parseImageParams(req.query);
    const asset = await find(req);
    if (!asset) throw notFound(req);
    // The row's checksum answers a 304 without asking the store; missing bytes answer 404 from deliver.
    const key = storageKey(asset);
    const original = { key, checksum: asset.checksum, type: asset.type, name: asset.name };
    if (!params) return deliver(req, res, service.storage, original);
    const transform = resolveTransform(params, asset.type, req.header('accept'));
    if (transform.negotiated) res.vary('Accept');
    // A variant this replica saw stored is served without asking the store first; should the store have lost it (a
    // bucket restored from an older copy), it is made again, once, within this request.
    for (let attempt = 1; ; attempt++) {
      const { file: variant, computed } = await images.variant(original, transform);
      // Deleted while its variant was computed: the delete may have run before the variant was stored.
      if (computed && !(await find(req))) {
        await service.storage.remove(variantsKey(key));
        throw notFound(req);
      }
      try {
        return await deliver(req, res, service.storage, variant);
      } catch (err) {
        if (attempt > 1 || !(err instanceof AppError) || err.code !== 'NOT_FOUND') throw err;
        images.forget(variant.key);
      }
    }
  };
}
