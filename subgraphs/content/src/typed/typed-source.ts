// What the typed schema's resolvers read through: entries, assets and collections, as the caller may see them, in a
// locale.
import type { LocaleRequest } from '@cp/graphql';

/** A content type as the typed schema is built from it: its last published version. */
export interface TypedContentType {
  id: string;
  /** The type's name in that version. */
  name: string;
  version: number;
  schema: Record<string, unknown>;
}

/** An entry as the resolvers read it (a content row: the published version for API keys). */
export interface TypedEntry {
  id: string;
  typeId: string;
  typeVersion: number;
  version: number;
  name: string;
  content: Record<string, unknown>;
  updatedAt: Date;
  metadata: Record<string, unknown>;
}

export interface TypedAsset {
  id: string;
  name: string;
  /** The media type. */
  type: string;
  size: number;
}

/** The image transformation parameters of an asset's CDN address. */
export interface AssetTransform {
  w?: number;
  h?: number;
  fit?: string;
  fm?: string;
  q?: number;
}

/**
 * A `where` argument as document filters: `filter` holds `content.<property>` → operators (what a search body's
 * `filter` holds), and every member of `and` and `or` is such a tree of its own.
 */
export interface FilterTree {
  filter: Record<string, Record<string, unknown>>;
  and: FilterTree[];
  /** Absent when the filter has no `OR`; an empty list matches nothing. */
  or?: FilterTree[];
}

export interface OrderKey {
  field: 'updatedAt' | `content.${string}`;
  direction: 'asc' | 'desc';
}

export interface CollectionRequest {
  type: TypedContentType;
  where: FilterTree;
  /** Ties are broken by id, in the direction of the last key. */
  order: OrderKey[];
  limit: number;
  skip: number;
  locale: LocaleRequest;
}

export interface CollectionPage {
  items: TypedEntry[];
  /** Counted only when asked for (and when the page alone doesn't tell). */
  total(): Promise<number>;
}

/** One request's reads: lookups by id are batched (one statement per kind and tick), collections one statement each. */
export interface TypedSource {
  /** A field's `locale` argument against the project's locales (400 for a code it doesn't have); absent: the default. */
  locale(requested?: string | null): LocaleRequest;
  /** The locale `entry` was read in: the entries it references are read in it too. */
  localeOf(entry: TypedEntry): LocaleRequest;
  entry(id: string, locale: LocaleRequest): Promise<TypedEntry | null>;
  asset(id: string): Promise<TypedAsset | null>;
  collection(request: CollectionRequest): Promise<CollectionPage>;
  assetUrl(asset: TypedAsset, transform?: AssetTransform): string;
}
