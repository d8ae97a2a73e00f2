// One request's reads for the typed schema: entries and assets by id in batches (one statement per kind and level of
// references), collections through typed-collection.ts, as the caller may see them.
import type { ProjectScope } from '@cp/graphql';
import type { EntityManager } from '@mikro-orm/postgresql';
import DataLoader from 'dataloader';
import { visibleContentRows, type ContentView } from '../content/content-rows';
import { collectionPage } from './typed-collection';
import type { AssetTransform, TypedAsset, TypedEntry, TypedSource } from './typed-source';

/** A transformation's parameters in one order, so one transformation always has one address (and one CDN entry). */
const TRANSFORM_ORDER = ['w', 'h', 'fit', 'fm', 'q'] as const;

/** The assets `ids` of the project that are not deleted (the assets module's table, read by SQL as content-links.ts does). */
async function liveAssets(em: EntityManager, scope: ProjectScope, ids: readonly string[]): Promise<TypedAsset[]> {
  return em.getConnection().execute(
    `select "id", "name", "type", "size" from "asset" where "id" in (${ids.map(() => '?').join(', ')})
        and "organization_id" = ? and "project_id" = ? and "status" <> 'deleted'`,
    [...ids, scope.organizationId, scope.projectId],
    'all',
    em.getTransactionContext(),
  );
}

const byId = <T extends { id: string }>(ids: readonly string[], rows: T[]) => {
  const found = new Map(rows.map((row) => [row.id, row]));
  return ids.map((id) => found.get(id) ?? null);
};

/** The reads of one request (its own batches; nothing is shared between requests). */
export function typedReads(
  em: EntityManager,
  scope: ProjectScope,
  view: ContentView,
  /** The CDN's base address (`config.http.cdnUrl`). */
  cdnUrl: string,
): TypedSource {
  const entries = new DataLoader<string, TypedEntry | null>(
    async (ids) => byId(ids, (await visibleContentRows(em, scope, ids, view)) as unknown as TypedEntry[]),
    { maxBatchSize: 1000 },
  );
  const assets = new DataLoader<string, TypedAsset | null>(async (ids) => byId(ids, await liveAssets(em, scope, ids)), {
    maxBatchSize: 1000,
  });
  return {
    entry: (id) => entries.load(id),
    asset: (id) => assets.load(id),
    collection: (request) => collectionPage(em, scope, request, view),
    assetUrl(asset: TypedAsset, transform?: AssetTransform) {
      const base = `${cdnUrl}/${scope.organizationId}/${scope.projectId}/assets/${asset.id}/${encodeURIComponent(asset.name)}`;
      if (!transform) return base;
      const params = new URLSearchParams();
      for (const name of TRANSFORM_ORDER) if (transform[name] !== undefined) params.set(name, String(transform[name]));
      return `${base}?${params}`;
    },
  };
}
