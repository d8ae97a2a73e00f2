// Component asset rules: upload with service-managed statuses, and the requested `active`/`deleted` transitions.
import { recordEvent } from '@cp/db';
import { AppError, InvalidStatusTransitionError, NotFoundError } from '@cp/errors';
import { EntityStatus, type ProjectScope } from '@cp/graphql';
import { receiveUpload, sniffType, storageKey, type AssetStorage } from '@cp/storage';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { IncomingMessage } from 'node:http';
import { Component } from '../component/component.entity';
import { Package } from '../package/package.entity';
import { ComponentAsset, ComponentAssetStatus } from './component-asset.entity';

const REQUESTABLE = [ComponentAssetStatus.active, ComponentAssetStatus.deleted];

export class ComponentAssetService {
  constructor(
    readonly storage: AssetStorage,
    private readonly maxBytes: number,
  ) {}

  async list(em: EntityManager, scope: ProjectScope, componentId: string): Promise<ComponentAsset[]> {
    await this.component(em, scope, componentId);
    return em.find(ComponentAsset, { componentId, ...scope }, { orderBy: { createdAt: 'asc', id: 'asc' } });
  }

  /**
   * The row exists (`uploading`) while bytes stream in, then `processing` while the type is sniffed, then `active`.
   * An upload whose bytes never arrive leaves nothing (no row, no bytes); one failing after that ends in `error` with
   * its bytes removed. Either way the client gets the failure.
   */
  async upload(
    em: EntityManager,
    scope: ProjectScope,
    componentId: string,
    req: IncomingMessage,
    actorId: string,
  ): Promise<ComponentAsset> {
    const component = await this.component(em, scope, componentId);
    if (component.status === EntityStatus.deleted) throw new InvalidStatusTransitionError(component.status, 'modified');
    const asset = em.create(ComponentAsset, { componentId, ...scope, name: 'upload', createdById: actorId });
    await em.flush();
    const key = storageKey(asset);
    let upload;
    try {
      upload = await receiveUpload(req, this.storage, key, this.maxBytes);
    } catch (err) {
      // The bytes never arrived (cut or malformed body, too large): no asset came to be, so no row stays behind
      // (receiveUpload already removed any bytes). Its creation was never announced, so no event is owed either.
      await em.removeAndFlush(asset);
      throw err;
    }
    try {
      Object.assign(asset, {
        name: upload.name,
        status: ComponentAssetStatus.processing,
        size: upload.stored.size,
        checksum: upload.stored.checksum,
      });
      await em.flush();
      return await em.transactional(async (tx) => {
        const managed = tx.merge(asset);
        Object.assign(managed, {
          type: await sniffType(upload.stored.head),
          status: ComponentAssetStatus.active,
          tags: upload.tags ?? [],
          metadata: upload.metadata ?? {},
        });
        recordEvent(tx, { resourceType: 'assets', action: 'created', resourceId: asset.id, ...scope, actorId });
        return managed;
      });
    } catch (err) {
      // A native update: flushing the entity would send the refused values (e.g. a NUL in `metadata`) again, fail,
      // and leave the row `processing` with its bytes on disk.
      try {
        await em.nativeUpdate(ComponentAsset, { id: asset.id }, { status: ComponentAssetStatus.error });
      } finally {
        await this.storage.remove(key);
      }
      throw err;
    }
  }

  /** Spec "Component Asset statuses": only active ↔ deleted, and never delete what a published package uses. */
  async setStatus(
    em: EntityManager,
    scope: ProjectScope,
    componentId: string,
    assetId: string,
    requested: string,
    actorId: string,
  ) {
    if (!REQUESTABLE.includes(requested as ComponentAssetStatus)) {
      throw new AppError('INVALID_STATUS', `Status must be one of ${REQUESTABLE.join(', ')}.`, {
        status: requested,
        allowed: REQUESTABLE,
      });
    }
    return em.transactional(async (tx) => {
      // Locked: the event's order value, drawn at its insert, then follows the previous change's commit (recordEvent).
      const where = { id: assetId, componentId, ...scope };
      const asset = await tx.findOne(ComponentAsset, where, { lockMode: LockMode.PESSIMISTIC_WRITE });
      if (!asset) throw new NotFoundError('ComponentAsset', assetId);
      if (asset.status === requested) return asset;
      if (!REQUESTABLE.includes(asset.status)) throw new InvalidStatusTransitionError(asset.status, requested);
      if (requested === ComponentAssetStatus.deleted) {
        const packages = await this.packagesUsing(tx, scope, asset);
        if (packages.length > 0) throw new AppError('ASSET_IN_USE', 'Published packages use this asset.', { packages });
      }
      asset.status = requested as ComponentAssetStatus;
      const action = requested === ComponentAssetStatus.deleted ? 'deleted' : 'restored';
      recordEvent(tx, { resourceType: 'assets', action, resourceId: asset.id, ...scope, actorId });
      return asset;
    });
  }

  /** A package uses the asset when it pins the asset's component and was published after the asset arrived. */
  private async packagesUsing(em: EntityManager, scope: ProjectScope, asset: ComponentAsset): Promise<string[]> {
    const packages = await em.find(
      Package,
      {
        ...scope,
        components: { $contains: [{ id: asset.componentId }] } as never,
        createdAt: { $gte: asset.createdAt },
      },
      { orderBy: { createdAt: 'asc' }, fields: ['version'] },
    );
    return packages.map((p) => p.version);
  }

  private async component(em: EntityManager, scope: ProjectScope, id: string): Promise<Component> {
    const component = await em.findOne(Component, { id, ...scope });
    if (!component) throw new NotFoundError('Component', id);
    return component;
  }
}
