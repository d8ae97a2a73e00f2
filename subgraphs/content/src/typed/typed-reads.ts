// One request's reads for the typed schema: entries and assets by id in batches (one statement per kind and level of
// references), collections through typed-collection.ts, as the caller may see them.
import { BadRequestError } from '@cp/errors';
import { ALL_LOCALES, localeRequest, type LocaleRequest, type ProjectLocale, type ProjectScope } from '@cp/graphql';
import type { EntityManager } from '@mikro-orm/postgresql';
import DataLoader from 'dataloader';
import { LOCALE, type LocalizedEntry } from '../content/content-locales';
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
  locales: readonly ProjectLocale[],
): TypedSource {
  const byDefault = localeRequest(locales);
  // One batch per locale a request reads in (most read in one).
  const loaders = new Map<string, DataLoader<string, TypedEntry | null>>();
  const entriesIn = (locale: LocaleRequest) => {
    let loader = loaders.get(locale.code);
    if (!loader) {
      const read = async (ids: readonly string[]) =>
        byId(ids, (await visibleContentRows(em, scope, ids, { ...view, locale })) as unknown as TypedEntry[]);
      loaders.set(locale.code, (loader = new DataLoader(read, { maxBatchSize: 1000 })));
    }
    return loader;
  };
  const assets = new DataLoader<string, TypedAsset | null>(async (ids) => byId(ids, await liveAssets(em, scope, ids)), {
    maxBatchSize: 1000,
  });
  return {
    locale(requested) {
      if (requested == null) return byDefault;
      // A typed field holds one value: every locale's map (`*`) has no type here.
      if (requested === ALL_LOCALES)
        throw new BadRequestError('The typed endpoint answers one locale: `*` is for the content API.', {
          parameter: 'locale',
          value: requested,
        });
      return localeRequest(locales, requested);
    },
    localeOf: (entry) => (entry as unknown as LocalizedEntry)[LOCALE] ?? byDefault,
    entry: (id, locale) => entriesIn(locale).load(id),
    asset: (id) => assets.load(id),
    collection: (request) => collectionPage(em, scope, request, { ...view, locale: request.locale }),
    assetUrl(asset: TypedAsset, transform?: AssetTransform) {
      const base = `${cdnUrl}/${scope.organizationId}/${scope.projectId}/assets/${asset.id}/${encodeURIComponent(asset.name)}`;
      if (!transform) return base;
      const params = new URLSearchParams();
      for (const name of TRANSFORM_ORDER) if (transform[name] !== undefined) params.set(name, String(transform[name]));
      return `${base}?${params}`;
    },
  };
}
