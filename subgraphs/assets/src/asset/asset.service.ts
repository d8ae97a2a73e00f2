// Asset rules: upload (bytes first, then the row and its event in one transaction), reads with filters, update, delete.
import { assertProjectFolder, ensureTags, escapeLike, lockReferenceTargets, recordEvent } from '@cp/db';
import { AppError, NotFoundError, ValidationFailedError } from '@cp/errors';
import { keysetPage, type ProjectScope, distinctNames } from '@cp/graphql';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Asset } from './asset.entity';
import type { AssetListArgs, UpdateAssetInput } from './asset.inputs';
import { receiveUpload, sanitizeFileName, sniffType, storageKey, variantsKey, type AssetStorage } from '@cp/storage';

export class AssetService {
  constructor(
    readonly storage: AssetStorage,
    private readonly maxBytes: number,
  ) {}

  async upload(em: EntityManager, scope: ProjectScope, req: IncomingMessage, actorId: string): Promise<Asset> {
    const id = randomUUID();
    const key = storageKey({ ...scope, id });
    const upload = await receiveUpload(req, this.storage, key, this.maxBytes);
    try {
      return await em.transactional(async (tx) => {
        await assertProjectFolder(tx, scope, upload.folderId);
        const asset = tx.create(Asset, {
          id,
          ...scope,
          name: upload.name,
          type: await sniffType(upload.stored.head),
          size: upload.stored.size,
          checksum: upload.stored.checksum,
          tags: upload.tags ?? [],
          folderId: upload.folderId ?? null,
          metadata: upload.metadata ?? {},
          createdById: actorId,
        });
        await ensureTags(tx, scope, asset.tags);
        recordEvent(tx, { resourceType: 'assets', action: 'created', resourceId: id, ...scope, actorId });
        return asset;
      });
    } catch (err) {
      // No row, no bytes: a failed upload leaves nothing behind.
      await this.storage.remove(key);
      throw err;
    }
  }

  list(em: EntityManager, scope: ProjectScope, args: AssetListArgs, activeOnly: boolean) {
    const where: FilterQuery<Asset> = { organizationId: scope.organizationId, projectId: scope.projectId };
    if (activeOnly) where.status = 'active';
    if (args.tag) where.tags = { $contains: [args.tag] };
    if (args.folderId !== undefined) where.folderId = args.folderId === 'null' ? null : args.folderId;
    // `image/*` is every `image/…` type; the prefix itself matches literally.
    if (args.type)
      where.type = args.type.endsWith('/*') ? { $like: `${escapeLike(args.type.slice(0, -1))}%` } : args.type;
    return keysetPage(em, Asset, { where, sortField: 'createdAt', direction: 'desc', args });
  }

  /**
   * `lock` (inside a transaction, before recording an event): the row stays ours until the transaction ends, so the
   * event's order value, drawn at its insert, follows the previous change's commit (see recordEvent).
   */
  async get(em: EntityManager, scope: ProjectScope, id: string, activeOnly = false, lock = false): Promise<Asset> {
    const where = {
      id,
      organizationId: scope.organizationId,
      projectId: scope.projectId,
      ...(activeOnly ? { status: 'active' } : {}),
    };
    const asset = await em.findOne(Asset, where, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
    if (!asset) throw new NotFoundError('Asset', id);
    return asset;
  }

  async update(
    em: EntityManager,
    scope: ProjectScope,
    id: string,
    input: UpdateAssetInput,
    actorId: string,
  ): Promise<Asset> {
    return em.transactional(async (tx) => {
      const asset = await this.get(tx, scope, id, false, true);
      if (input.name !== undefined) {
        if (!input.name.trim()) throw new ValidationFailedError([{ path: '/name', message: 'must not be empty' }]);
        asset.name = sanitizeFileName(input.name);
      }
      if (input.tags !== undefined) {
        asset.tags = distinctNames(input.tags);
        await ensureTags(tx, scope, asset.tags);
      }
      if (input.folderId !== undefined) {
        await assertProjectFolder(tx, scope, input.folderId);
        asset.folderId = input.folderId;
      }
      if (input.metadata !== undefined) asset.metadata = input.metadata;
      recordEvent(tx, { resourceType: 'assets', action: 'updated', resourceId: id, ...scope, actorId });
      return asset;
    });
  }

  /**
   * Soft delete: the row stays for history; the bytes and the image variants are removed from the store.
   * Refused (409 `CONTENT_REFERENCED`) while an entry references the asset.
   */
  async delete(em: EntityManager, scope: ProjectScope, id: string, actorId: string): Promise<Asset> {
    const deleted = await em.transactional(async (tx) => {
      const asset = await this.get(tx, scope, id, false, true);
      await assertUnreferenced(tx, scope, id);
      asset.status = 'deleted';
      recordEvent(tx, {
        resourceType: 'assets',
        action: 'deleted',
        resourceId: id,
        ...scope,
        actorId,
        published: true,
      });
      return asset;
    });
    // The bytes go after the commit: a store out of reach then leaves unreachable bytes (the CDN serves active rows
    // only), never a deleted asset that still answers, nor a live one without bytes.
    const key = storageKey(deleted);
    await Promise.all([this.storage.remove(key), this.storage.remove(variantsKey(key))]).catch(() => undefined);
    return deleted;
  }
}

/**
 * Entries reference assets through the content module's links table (one database for every module): one probe of
 * its target index, under the asset's reference lock, so an entry saved meanwhile with a reference to it is seen.
 */
async function assertUnreferenced(tx: EntityManager, scope: ProjectScope, id: string): Promise<void> {
  // A write referencing the asset holds this lock shared while it checks the asset: one of the two waits for the other.
  await lockReferenceTargets(tx, [id], 'exclusive');
  const rows = (await tx.getConnection().execute(
    `select distinct "from_id" from "content_link" where "target_id" = ? and "project_id" = ? and "organization_id" = ?
      and "target_kind" = 'asset' order by "from_id" limit 100`,
    [id, scope.projectId, scope.organizationId],
    'all',
    tx.getTransactionContext(),
  )) as { from_id: string }[];
  if (rows.length > 0) {
    throw new AppError('CONTENT_REFERENCED', 'Entries reference this asset; remove those references first.', {
      referencedBy: rows.map((r) => r.from_id),
    });
  }
}
