// A typed collection's page: the content lists' document filter and sort builders, combined with AND/OR and several sort keys, on the rows
// the caller may see (the published projection for API keys, working copies in preview for preview keys).
import type { ProjectScope } from '@cp/graphql';
import { raw, RawQueryFragment, type EntityManager, type FilterQuery } from '@mikro-orm/postgresql';
import { documentSortKey, NOTHING } from '../content/content-fields';
import { listWhere, searchWhere } from '../content/content-query';
import { readContentRows, type ContentView } from '../content/content-rows';
import { Content } from '../content/content.entity';
import { PublishedContent } from '../content/published-content.entity';
import type { CollectionPage, CollectionRequest, FilterTree, TypedEntry } from './typed-source';

/** Matches every entry: what an empty `AND` (or no filter at all) stands for. */
const EVERYTHING = { id: { $ne: null } } as FilterQuery<Content>;

/** A filter tree as one condition: its own filters, every `AND` member, and one of its `OR` members. */
function treeWhere(tree: FilterTree, view: ContentView, schema: Record<string, unknown>): FilterQuery<Content> {
  const conditions = [
    ...searchWhere(tree.filter, view.visibility, schema, view.locale?.chain),
    ...tree.and.map((member) => treeWhere(member, view, schema)),
  ];
  if (tree.or) conditions.push(tree.or.length ? { $or: tree.or.map((m) => treeWhere(m, view, schema)) } : NOTHING);
  return conditions.length ? ({ $and: conditions } as FilterQuery<Content>) : EVERYTHING;
}

/**
 * One page of a content type's entries: one statement for the rows, and one more for `total` only when it is selected
 * and the page alone doesn't tell (a short page that isn't past the end). Filters are checked (400) before any runs.
 */
export async function collectionPage(
  em: EntityManager,
  scope: ProjectScope,
  request: CollectionRequest,
  view: ContentView,
): Promise<CollectionPage> {
  const { schema, id: typeId } = request.type;
  const published = view.visibility === 'published';
  const from = (published ? PublishedContent : Content) as typeof Content;
  // Raw conditions are consumed by the statement that renders them: each statement builds its own.
  const where = () =>
    ({
      $and: [...listWhere(scope, { typeId }, view.visibility), treeWhere(request.where, view, schema)],
    }) as FilterQuery<Content>;
  const orderBy: Record<string, 'asc' | 'desc'> = {};
  for (const key of request.order) {
    const sortKey = key.field === 'updatedAt' ? undefined : documentSortKey(schema, key.field, view.locale?.chain);
    const column = sortKey ? raw((alias) => sortKey.sql(alias)) : key.field;
    orderBy[column] ??= key.direction;
  }
  orderBy.id = request.order.at(-1)!.direction;
  const items = (await RawQueryFragment.run(() =>
    readContentRows(em, where(), orderBy, request.limit, {
      published,
      compiled: false,
      offset: request.skip,
      locale: view.locale,
    }),
  )) as unknown as TypedEntry[];
  const known = items.length < request.limit && (items.length > 0 || request.skip === 0);
  return {
    items,
    total: async () => (known ? request.skip + items.length : RawQueryFragment.run(() => em.count(from, where()))),
  };
}
