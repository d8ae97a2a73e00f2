// Handlers of the component asset HTTP routes (declared in component-asset.http-routes.ts): multipart upload and CDN
// delivery, outside GraphQL because the gateway forwards JSON only.
import { sqlProjectDirectory } from '@cp/db';
import { AppError } from '@cp/errors';
import { authorizeProject, type Context } from '@cp/graphql';
import { deliver, storageKey } from '@cp/storage';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Request, Response } from 'express';
import { ComponentAsset, ComponentAssetStatus } from './component-asset.entity';
import type { ComponentAssetService } from './component-asset.service';
import { componentAssetUrl } from './component-asset-url';
import { respond } from '@cp/edge';

/** The REST shape of a component asset (the same fields GraphQL exposes). */
export function componentAssetJson(asset: ComponentAsset, cdnUrl: string) {
  const { id, componentId, name, type, size, status, metadata, tags, createdAt, updatedAt } = asset;
  return {
    id,
    componentId,
    name,
    type,
    url: componentAssetUrl(cdnUrl, asset),
    size,
    status,
    metadata,
    tags,
    createdAt: createdAt.toISOString(),
    updatedAt: updatedAt.toISOString(),
  };
}

export function componentAssetUploadHandler(service: ComponentAssetService, cdnUrl: string) {
  return async (req: Request, res: Response) => {
    const ctx = res.locals.context as Context;
    const scope = { organizationId: String(req.params.organizationId), projectId: String(req.params.projectId) };
    const user = await authorizeProject(ctx, scope, 'components', 'update');
    const asset = await service.upload(ctx.em, scope, String(req.params.componentId), req, user.userId);
    respond(res.status(201).type('application/json'), JSON.stringify(componentAssetJson(asset, cdnUrl)));
  };
}

export function componentAssetCdnHandler(orm: MikroORM, service: ComponentAssetService) {
  const projects = sqlProjectDirectory(orm);
  return async (req: Request, res: Response) => {
    const { organizationId, projectId, assetId } = req.params as Record<string, string>;
    // A deleted project's assets are gone with it, as its other resources are.
    const asset = !(await projects.exists(organizationId, projectId))
      ? null
      : await orm.em
          .fork()
          .findOne(ComponentAsset, { id: assetId, organizationId, projectId, status: ComponentAssetStatus.active });
    if (!asset?.checksum)
      throw new AppError('NOT_FOUND', 'Asset not found.', { resource: 'ComponentAsset', id: assetId });
    await deliver(req, res, service.storage, {
      key: storageKey(asset),
      checksum: asset.checksum,
      type: asset.type,
      name: asset.name,
    });
  };
}
