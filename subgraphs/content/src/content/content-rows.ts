// Read-only content pages in one query as plain rows: no entities, no identity map, no change-tracking snapshots.
import { QueryShapes } from '@cp/db';
import { EntityStatus, PREVIEW_STATUSES, type LocaleRequest, type ProjectScope, type Visibility } from '@cp/graphql';
import type { EntityManager, FilterQuery, QBFilterQuery } from '@mikro-orm/postgresql';
import { ContentTypeVersion } from '../content-type/content-type-version.entity';
import { Content } from './content.entity';
import { localizeRows } from './content-locales';
import { PublishedContent } from './published-content.entity';

interface Columns {
  /** The mapped columns of `content` (not the generated `search_vector`). */
  all: string[];
  withoutCompiled: string[];
  /** `content_type_version`'s columns, as `t__<column>` aliases. */
  typeVersion: string[];
  /** `published_content`'s mapped columns. */
  published: string[];
}

/** Resolved once per ORM (its metadata and naming), like the query shapes below. */
const columnsByOrm = new WeakMap<object, Columns>();
function columnsOf(em: EntityManager): Columns {
  let columns = columnsByOrm.get(em.config);
  if (!columns) {
    const props = em
      .getMetadata()
      .get(Content.name)
      .props.filter((p) => p.fieldNames?.length && p.persist !== false);
    const all = props.map((p) => p.name);
    const typeVersion = em
      .getMetadata()
      .get(ContentTypeVersion.name)
      .props.flatMap((p) => p.fieldNames ?? [])
      .map((column) => `t.${column} as t__${column}`);
    const withoutCompiled = all.filter((name) => name !== 'compiled');
    const published = em
      .getMetadata()
      .get(PublishedContent.name)
      .props.map((p) => p.name);
    columnsByOrm.set(em.config, (columns = { all, withoutCompiled, typeVersion, published }));
  }
  return columns;
}

/**
 * Content reads are a handful of filter shapes: their SQL is built once each, per ORM (schema, naming).
 * Searches have their own cache: their filters are user-built, of any shape, and must not fill the one lists rely on.
 */
type ShapeCaches = Record<'lists' | 'searches', QueryShapes<FilterQuery<Content>>>;
const shapesByOrm = new WeakMap<object, ShapeCaches>();
function shapesOf(em: EntityManager, kind: keyof ShapeCaches): QueryShapes<FilterQuery<Content>> {
  let shapes = shapesByOrm.get(em.config);
  if (!shapes) shapesByOrm.set(em.config, (shapes = { lists: new QueryShapes(), searches: new QueryShapes() }));
  return shapes[kind];
}

/** Who reads, whether the caller selected `compiled`, and in which locale (absent: rows as stored). */
export interface ContentView {
  visibility: Visibility;
  compiled: boolean;
  locale?: LocaleRequest;
}

export const ADMIN_VIEW: ContentView = { visibility: 'admin', compiled: true };

export interface ContentRowsOptions {
  /**
   * API keys' view: rows of the published projection (`where` and `orderBy` apply to it, never to the working
   * copy), its document included, and the version's module joined in the same query.
   */
  published?: boolean;
  /** Also the content type version the row follows, as `contentType` (the resolved view). */
  typeVersion?: boolean;
  /** False when the caller didn't select `compiled`: the largest column of a list page stays in the database. */
  compiled?: boolean;
  /** Rows to skip (offset pages). Searches pass it, page 1 included, so their shapes go to their own cache. */
  offset?: number;
  /** The locale the documents are answered in (content-locales.ts); absent: as stored, every locale. */
  locale?: LocaleRequest;
}

/**
 * A page of entries as plain objects. List responses only read these values, so hydrating entities (identity map,
 * snapshots of every JSON column for change tracking) was most of a list read's cost.
 */
export async function readContentRows(
  em: EntityManager,
  where: FilterQuery<Content>,
  orderBy: Record<string, 'asc' | 'desc'>,
  limit: number,
  { published = false, typeVersion = false, compiled = true, offset, locale }: ContentRowsOptions = {},
): Promise<Content[]> {
  const build = (filter: FilterQuery<Content>) => {
    let query;
    if (!published) {
      const { all, withoutCompiled } = columnsOf(em);
      query = em
        .createQueryBuilder(Content, 'c')
        .select(compiled ? all : withoutCompiled)
        .where(filter as QBFilterQuery<Content>)
        .orderBy(orderBy)
        .limit(limit)
        .offset(offset)
        .getKnexQuery();
    } else {
      query = em
        .createQueryBuilder(PublishedContent, 'c')
        .select(columnsOf(em).published)
        .where(filter as QBFilterQuery<PublishedContent>)
        .orderBy(orderBy)
        .limit(limit)
        .offset(offset)
        .getKnexQuery();
      // The module stays in the version row, joined only when the caller selected it.
      if (compiled)
        query
          .join('content_version as v', (on) => on.on('v.content_id', '=', 'c.id').andOn('v.version', '=', 'c.version'))
          .select('v.compiled as v__compiled');
    }
    if (typeVersion) {
      // The row's own type version: the published version's in the projection (a later migration of the working copy
      // doesn't move it), the working copy's otherwise.
      query
        .join('content_type_version as t', (on) =>
          on.on('t.content_type_id', '=', 'c.type_id').andOn('t.version', '=', 'c.type_version'),
        )
        .select(columnsOf(em).typeVersion);
    }
    return query;
  };
  const key = `${published}|${typeVersion}|${compiled}|${JSON.stringify(orderBy)}|${limit}`;
  // A later page is built as is: learning a shape per page number would only fill the cache. So is an order on an SQL
  // expression (a document property): its key is a new raw fragment's every time.
  const { sql, bindings } =
    offset || Object.keys(orderBy).some((column) => !/^\w+$/.test(column))
      ? build(where).toSQL()
      : shapesOf(em, offset === undefined ? 'lists' : 'searches').compile(key, where, build);
  const rows: Record<string, unknown>[] = await em
    .getConnection()
    .execute(sql, [...bindings], 'all', em.getTransactionContext());
  const driver = em.getDriver();
  const meta = em.getMetadata().get(published ? PublishedContent.name : Content.name);
  const typeMeta = typeVersion ? em.getMetadata().get(ContentTypeVersion.name) : undefined;
  const entries = rows.map((row) => {
    let contentType: unknown;
    if (typeMeta) {
      const typeRow: Record<string, unknown> = {};
      for (const key of Object.keys(row)) {
        if (!key.startsWith('t__')) continue;
        typeRow[key.slice(3)] = row[key];
        delete row[key];
      }
      contentType = driver.mapResult(typeRow, typeMeta);
    }
    const { v__compiled, ...columns } = row;
    const entry = driver.mapResult(columns, meta) as Record<string, unknown>;
    if (!published) return (typeMeta ? { ...entry, contentType } : entry) as unknown as Content;
    // Keys never write, so they get no working-copy revision (it moves with every draft edit): the version stands in.
    const view = {
      ...entry,
      ...(compiled ? { compiled: v__compiled } : {}),
      status: EntityStatus.published,
      lastPublishedVersion: entry.version,
      revision: entry.version,
    };
    return (typeMeta ? { ...view, contentType } : view) as unknown as Content;
  });
  if (locale) await localizeRows(em, entries, locale, { compiled, published });
  return entries;
}

/**
 * The entries `ids` the caller can see, as plain rows in one query: for API keys published entries (their published
 * version), for preview keys those in `PREVIEW_STATUSES`, for staff every entry that is not deleted.
 */
export async function visibleContentRows(
  em: EntityManager,
  scope: ProjectScope,
  ids: readonly string[],
  view: ContentView,
): Promise<Content[]> {
  if (ids.length === 0) return [];
  const visible =
    view.visibility === 'admin'
      ? { status: { $ne: EntityStatus.deleted } }
      : view.visibility === 'preview'
        ? { status: { $in: [...PREVIEW_STATUSES] } }
        : {};
  const where = { organizationId: scope.organizationId, projectId: scope.projectId, id: { $in: [...ids] }, ...visible };
  return readContentRows(em, where as FilterQuery<Content>, {}, ids.length, {
    published: view.visibility === 'published',
    compiled: view.compiled,
    offset: 0,
    locale: view.locale,
  });
}
