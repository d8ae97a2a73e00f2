// Export and import of the components subgraph's part of a project: components with every version, packages, component assets and their bytes.
import {
  checkFiles,
  checkRecords,
  checkVersions,
  exportFiles,
  exportRows,
  pendingFiles,
  recordEvent,
  recordImportEvents,
  summarize,
  syncRows,
  type ImportSummary,
  type ImportOptions,
  type ProjectTransfer,
  type TransferData,
  type TransferFileStore,
  type TransferRecord,
  type TransferScope,
} from '@cp/db';
import { storageKey } from '@cp/storage';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ComponentAsset } from '../component-asset/component-asset.entity';
import { ComponentVersion } from '../component/component-version.entity';
import { Component } from '../component/component.entity';
import { Package } from '../package/package.entity';

const FOLDER = 'component-assets';

/**
 * Rows are copied as they are: components keep their compiled code and schema, packages their semantic versions
 * and pinned component versions, so content pinned to a package resolves the same components after an import.
 */
export class ComponentsTransferService implements ProjectTransfer {
  readonly name = 'components';
  readonly kinds = ['components', 'componentVersions', 'packages', 'componentAssets'] as const;

  constructor(private readonly storage: TransferFileStore) {}

  async export(em: EntityManager, scope: TransferScope) {
    const inProject = { organizationId: scope.organizationId, projectId: scope.projectId };
    const componentAssets = await exportRows(em, ComponentAsset, inProject);
    const data: TransferData = {
      components: await exportRows(em, Component, inProject),
      componentVersions: await exportRows(em, ComponentVersion, inProject),
      packages: await exportRows(em, Package, inProject),
      componentAssets,
    };
    return { data, files: await exportFiles(this.storage, FOLDER, componentAssets, (row) => this.key(row, scope)) };
  }

  validate(data: TransferData, files: ReadonlySet<string>): string[] {
    return [
      ...checkRecords(data, 'components', ['name', 'type', 'status', 'content']),
      ...checkRecords(data, 'componentVersions', ['componentId', 'version', 'compiled']),
      ...checkRecords(data, 'packages', ['version', 'components']),
      ...checkRecords(data, 'componentAssets', ['componentId', 'name', 'status']),
      ...checkVersions(data, 'componentVersions', 'components', 'componentId'),
      ...checkFiles(data, 'componentAssets', FOLDER, files),
    ];
  }

  async import(em: EntityManager, scope: TransferScope, data: TransferData, options: ImportOptions) {
    const summary: ImportSummary = {};
    const actorId = options.actorId ?? null;
    const components = await syncRows(em, Component, data.components, { scope, label: 'component' });
    summary.componentVersions = summarize(
      await syncRows(em, ComponentVersion, data.componentVersions, {
        scope,
        immutable: true,
        label: 'component version',
      }),
    );
    recordImportEvents(em, 'components', components, scope, actorId);
    summary.components = summarize(components);
    // A package is a published, immutable record: inserted when missing, never changed.
    const packages = await syncRows(em, Package, data.packages, { scope, immutable: true, label: 'package' });
    for (const pkg of packages.inserted) {
      recordEvent(em, {
        resourceType: 'packages',
        action: 'created',
        resourceId: pkg.id,
        ...scope,
        actorId,
        published: true,
      });
    }
    summary.packages = summarize(packages);
    const assets = await syncRows(em, ComponentAsset, data.componentAssets, { scope, label: 'component asset' });
    recordImportEvents(em, 'assets', assets, scope, actorId);
    summary.componentAssets = summarize(assets);
    const files = await pendingFiles(this.storage, FOLDER, data.componentAssets, assets, options.files, (row) =>
      this.key(row, scope),
    );
    return { summary, files };
  }

  private key(row: TransferRecord, scope: TransferScope): string {
    return storageKey({ ...scope, id: row.id });
  }
}
