// Export and import of the assets subgraph's part of a project: asset rows and their bytes.
import {
  checkFiles,
  checkRecords,
  exportFiles,
  exportRows,
  pendingFiles,
  recordImportEvents,
  summarize,
  syncRows,
  type ImportOptions,
  type ProjectTransfer,
  type TransferData,
  type TransferFileStore,
  type TransferRecord,
  type TransferScope,
} from '@cp/db';
import { storageKey } from '@cp/storage';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Asset } from '../asset/asset.entity';

const FOLDER = 'assets';

/** Ids and checksums are kept, so CDN paths (`…/assets/{id}/{name}`) and ETags stay valid after an import. */
export class AssetsTransferService implements ProjectTransfer {
  readonly name = 'assets';
  readonly kinds = ['assets'] as const;

  constructor(private readonly storage: TransferFileStore) {}

  async export(em: EntityManager, scope: TransferScope) {
    const assets = await exportRows(em, Asset, { organizationId: scope.organizationId, projectId: scope.projectId });
    return {
      data: { assets } as TransferData,
      files: await exportFiles(this.storage, FOLDER, assets, (row) => this.key(row, scope)),
    };
  }

  validate(data: TransferData, files: ReadonlySet<string>): string[] {
    return [
      ...checkRecords(data, 'assets', ['name', 'type', 'size', 'checksum']),
      ...checkFiles(data, 'assets', FOLDER, files),
    ];
  }

  async import(em: EntityManager, scope: TransferScope, data: TransferData, options: ImportOptions) {
    const result = await syncRows(em, Asset, data.assets, { scope, label: 'asset' });
    recordImportEvents(em, 'assets', result, scope, options.actorId);
    const files = await pendingFiles(this.storage, FOLDER, data.assets, result, options.files, (row) =>
      this.key(row, scope),
    );
    return { summary: { assets: summarize(result) }, files };
  }

  private key(row: TransferRecord, scope: TransferScope): string {
    return storageKey({ ...scope, id: row.id });
  }
}
