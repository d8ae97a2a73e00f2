// Finding content: list filters (with their aliases), search filters, and full-text conditions shared by both.
import { BadRequestError } from '@cp/errors';
import {
  EntityStatus,
  parseOffsetArgs,
  PREVIEW_STATUSES,
  storableInstant,
  type ProjectScope,
  type Visibility,
} from '@cp/graphql';
import { raw, type EntityManager, type FilterQuery } from '@mikro-orm/postgresql';
import { documentCondition, DOCUMENT_FIELD, likePattern, NOTHING } from './content-fields';
import { Content } from './content.entity';
import { PublishedContent } from './published-content.entity';
import type { ContentListArgs } from './content.inputs';

/** At most this many words in a full-text search: PostgreSQL's `to_tsquery` of thousands of terms never returns. */
export const MAX_SEARCH_WORDS = 32;

/** The words of a `search` or `query` text; more than 1000 characters or `MAX_SEARCH_WORDS` words is a 400. */
export function searchWords(terms: string, parameter: 'search' | 'query'): string[] {
  if (terms.length > 1000)
    throw new BadRequestError(`${parameter} must be at most 1000 characters.`, { parameter, limit: 1000 });
  const words = terms.match(/[\p{L}\p{N}]+/gu) ?? [];
  if (words.length > MAX_SEARCH_WORDS) {
    throw new BadRequestError(`${parameter} may hold at most ${MAX_SEARCH_WORDS} words.`, {
      parameter,
      limit: MAX_SEARCH_WORDS,
    });
  }
  return words;
}

/** Prefix matching on every word: `hel wor` finds "hello world". */
export function fullText(terms: string, parameter: 'search' | 'query' = 'search'): FilterQuery<Content> | undefined {
  const words = searchWords(terms, parameter);
  if (words.length === 0) return undefined;
  const query = words.map((w) => `${w.toLowerCase()}:*`).join(' & ');
  // English drops stop words; a search of nothing but stop words ("the") then matches nothing at all, so it falls back
  // to plain prefixes ("the" finds "theme").
  const tsquery = `case when numnode(to_tsquery('english', ?)) > 0 then to_tsquery('english', ?) else to_tsquery('simple', ?) end`;
  return {
    [raw((alias) => `${alias}.search_vector @@ (${tsquery})`, [query, query, query])]: true,
  } as FilterQuery<Content>;
}

/**
 * List filters, for the caller's view. `published` (API keys) reads the published projection, where every entry
 * is `published`: `status=published` is then a no-op and any other status a 400 naming the parameter. `preview`
 * (preview keys) reads the working rows in `PREVIEW_STATUSES` only, and another status is a 400 the same way.
 */
export function listWhere(
  scope: ProjectScope,
  args: ContentListArgs,
  visibility: Visibility = 'admin',
  schema?: Record<string, unknown>,
  chain?: readonly string[],
): FilterQuery<Content>[] {
  const where: FilterQuery<Content>[] = [{ organizationId: scope.organizationId, projectId: scope.projectId }];
  const typeId = args.typeId ?? args.type ?? args.contentType;
  if (typeId) where.push({ typeId });
  const allowed =
    visibility === 'published' ? [EntityStatus.published] : visibility === 'preview' ? PREVIEW_STATUSES : undefined;
  if (args.status && allowed && !allowed.includes(args.status)) {
    const sees = visibility === 'published' ? 'published content only' : 'drafts, working copies and published content';
    const message = `This API key sees ${sees}: status may only be ${allowed.map((s) => `\`${s}\``).join(', ')}.`;
    throw new BadRequestError(message, { parameter: 'status', value: args.status, allowed });
  }
  if (visibility === 'preview') where.push({ status: { $in: [...PREVIEW_STATUSES] } });
  if (args.status && visibility !== 'published') where.push({ status: args.status });
  if (args.isTemplate !== undefined && args.isTemplate !== null) where.push({ isTemplate: args.isTemplate });
  if (args.folderId !== undefined && args.folderId !== null)
    where.push({ folderId: args.folderId === 'null' ? null : args.folderId });
  const tags = args.tags
    ?.split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  if (tags?.length) where.push({ tags: { $contains: tags } } as FilterQuery<Content>);
  const text = fullText(args.search ?? '');
  if (text) where.push(text);
  where.push(...searchWhere(args.filter, visibility, schema, chain));
  return where;
}

/**
 * The one content type a request selects (`typeId` or an alias, or a search filter's `typeId`/`type` `eq`), whose
 * schema `content.<path>` filters are checked against; undefined when it selects none or several.
 */
export function selectedTypeId(args: Pick<ContentListArgs, 'typeId' | 'type' | 'contentType' | 'filter'>) {
  const byArgument = args.typeId ?? args.type ?? args.contentType;
  if (byArgument) return byArgument;
  const eqOf = (field: string) => {
    const ops = args.filter?.[field] as { eq?: unknown } | undefined;
    return typeof ops?.eq === 'string' ? ops.eq : undefined;
  };
  return eqOf('typeId') ?? eqOf('type');
}

/** The first `content.<path>` field a filter or an order names, if any: only then is a type's schema needed. */
export function documentField(filter: Record<string, unknown> | undefined, order: ListOrder): string | undefined {
  return [...Object.keys(filter ?? {}), order.field].find((field) => DOCUMENT_FIELD.test(field));
}

/** A list's order: `updatedAt`, or a property of the document (`content.<path>`); ties are broken by id. */
export interface ListOrder {
  field: 'updatedAt' | `content.${string}`;
  direction: 'asc' | 'desc';
}

const NEWEST_FIRST: ListOrder = { field: 'updatedAt', direction: 'desc' };

/** A list's `sort`: `<field>:asc|desc`, the field `updatedAt` (default, newest first) or `content.<path>`. */
export function parseSort(sort: string | undefined): ListOrder {
  if (sort === undefined) return NEWEST_FIRST;
  const match = /^(updatedAt|content\.[^:]+):(asc|desc)$/.exec(sort);
  if (!match)
    throw new BadRequestError('sort must be `updatedAt:asc|desc` or `content.<path>:asc|desc`.', {
      parameter: 'sort',
      value: sort,
    });
  return { field: match[1] as ListOrder['field'], direction: match[2] as ListOrder['direction'] };
}

/** What a filterable field holds decides its operators and the values they take. */
type FieldKind = 'text' | 'status' | 'date' | 'tags';
const FIELDS: Record<string, { column: string; kind: FieldKind }> = {
  type: { column: 'typeId', kind: 'text' },
  typeId: { column: 'typeId', kind: 'text' },
  tags: { column: 'tags', kind: 'tags' },
  status: { column: 'status', kind: 'status' },
  name: { column: 'name', kind: 'text' },
  createdAt: { column: 'createdAt', kind: 'date' },
  updatedAt: { column: 'updatedAt', kind: 'date' },
  'metadata.author': { column: 'metadata.author', kind: 'text' },
};
/** The specification's operators (`all`/`any` on tags, comparisons on dates, `like` on names), plus what is plainly meaningful. */
const OPERATORS: Record<FieldKind, string[]> = {
  text: ['eq', 'neq', 'in', 'gte', 'lte', 'gt', 'lt', 'like'],
  status: ['eq', 'neq', 'in'],
  date: ['eq', 'neq', 'in', 'gte', 'lte', 'gt', 'lt'],
  tags: ['eq', 'neq', 'in', 'all', 'any'],
};
const ALL_OPERATORS = [...new Set(Object.values(OPERATORS).flat())];

/**
 * Search filter → MikroORM conditions; unknown fields, operators or ill-typed values are 400 naming them. For the
 * `published` view (API keys, the published projection) `status` is decided here: every entry there is `published`.
 * Every other view filters the working rows' own status (a preview key's are limited by `listWhere`). A localized
 * property is read in the locale whose fallback `chain` is given (every read passes its request's).
 */
export function searchWhere(
  filter: Record<string, unknown> | undefined,
  visibility: Visibility = 'admin',
  schema?: Record<string, unknown>,
  chain?: readonly string[],
): FilterQuery<Content>[] {
  return Object.entries(filter ?? {}).flatMap(([field, ops]) => {
    const document = DOCUMENT_FIELD.exec(field);
    if (document) {
      if (!schema)
        throw new BadRequestError(`"${field}" needs exactly one content type selected (\`typeId\`).`, { field });
      const path = document[1].split('.');
      return Object.entries(operatorsOf(field, ops)).map(([op, value]) =>
        documentCondition(schema, field, path, op, value, chain),
      );
    }
    const spec = Object.hasOwn(FIELDS, field) ? FIELDS[field] : undefined;
    if (!spec)
      throw new BadRequestError(`Unknown filter field "${field}".`, {
        field,
        allowed: [...Object.keys(FIELDS), 'content.<path>'],
      });
    return Object.entries(operatorsOf(field, ops, OPERATORS[spec.kind])).flatMap(([op, value]) => {
      const where = condition(field, spec.column, spec.kind, op, value);
      if (visibility !== 'published' || spec.kind !== 'status') return [where];
      return matchesPublished(op, value) ? [] : [NOTHING];
    });
  });
}

/** A filter field's value: an object of operator → value, else 400 naming the field. */
function operatorsOf(field: string, ops: unknown, allowed?: string[]): Record<string, unknown> {
  if (typeof ops !== 'object' || ops === null || Array.isArray(ops))
    throw new BadRequestError(`Filter "${field}" must be an object of operators.`, {
      field,
      ...(allowed && { allowed }),
    });
  return ops as Record<string, unknown>;
}

/** Whether a (checked) status condition holds for `published`, the status of everything an API key sees. */
function matchesPublished(op: string, value: unknown): boolean {
  if (op === 'eq') return value === EntityStatus.published;
  if (op === 'neq') return value !== EntityStatus.published;
  return (value as unknown[]).includes(EntityStatus.published);
}

function condition(field: string, column: string, kind: FieldKind, op: string, value: unknown): FilterQuery<Content> {
  if (!OPERATORS[kind].includes(op)) {
    const known = ALL_OPERATORS.includes(op);
    throw new BadRequestError(
      known ? `Operator "${op}" does not apply to "${field}".` : `Unknown operator "${op}" on "${field}".`,
      { field, operator: op, allowed: OPERATORS[kind] },
    );
  }
  const on = (expr: unknown): FilterQuery<Content> =>
    (column === 'metadata.author' ? { metadata: { author: expr } } : { [column]: expr }) as FilterQuery<Content>;
  // Values are scalars checked here: an object would reach the ORM as operators of its own (`{"eq": {"$ne": 1}}`).
  const one = (v: unknown) => scalar(field, op, kind, v);
  const many = () => {
    if (!Array.isArray(value))
      throw new BadRequestError(`Operator "${op}" on "${field}" needs an array.`, { field, operator: op });
    return value.map(one);
  };
  switch (op) {
    case 'eq':
      return kind === 'tags' ? on({ $contains: [one(value)] }) : on(one(value));
    case 'neq':
      return kind === 'tags'
        ? ({ $not: on({ $contains: [one(value)] }) } as FilterQuery<Content>)
        : on({ $ne: one(value) });
    case 'in':
    case 'any': {
      const values = many();
      if (values.length === 0) return NOTHING; // in/any of nothing matches nothing
      // On tags, `in` is "has any of these", like `any`.
      return kind === 'tags'
        ? ({ $or: values.map((t) => on({ $contains: [t] })) } as FilterQuery<Content>)
        : on({ $in: values });
    }
    case 'all':
      return on({ $contains: many() });
    case 'like':
      return on({ $ilike: likePattern(field, one(value) as string) });
    default:
      return on({ [`$${op}`]: one(value) });
  }
}

/** One filter value: text for text fields and tags, a known status, an ISO 8601 date (a Date) for dates. */
function scalar(field: string, op: string, kind: FieldKind, value: unknown): unknown {
  if (kind === 'date') {
    const at = storableInstant(value);
    if (!at)
      throw new BadRequestError(`Filter "${field}" needs an ISO 8601 date between the years 0001 and 9999.`, {
        field,
        operator: op,
      });
    return at;
  }
  if (typeof value !== 'string')
    throw new BadRequestError(`Filter "${field}" (${op}) needs a string.`, { field, operator: op });
  if (kind === 'status' && !Object.hasOwn(EntityStatus, value))
    throw new BadRequestError(`Unknown status "${value}".`, { field, value });
  return value;
}

/**
 * Which of `ids` match `where` (on the published projection with `published`, the working rows otherwise): one query,
 * the ids sent as one JSON parameter however many there are.
 */
export async function matchingIds(
  em: EntityManager,
  where: FilterQuery<Content>[],
  ids: string[],
  published = false,
): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const among = {
    [raw((alias) => `${alias}.id in (select jsonb_array_elements_text(?::jsonb))`, [JSON.stringify(ids)])]: true,
  } as FilterQuery<Content>;
  const from = published ? PublishedContent : Content;
  const rows: { id: string }[] = await em
    .createQueryBuilder(from as typeof Content, 'c')
    .select('id')
    .where({ $and: [...where, among] } as never)
    .execute('all', false);
  return new Set(rows.map((r) => r.id));
}

/** The search's `sort`: one `{field: "updatedAt" | "content.<path>", order}` entry (or none: newest first). */
export function sortOrder(sort: unknown): ListOrder {
  if (sort === undefined || sort === null) return NEWEST_FIRST;
  const list = Array.isArray(sort) ? sort : [sort];
  const [first] = list as { field?: unknown; order?: unknown }[];
  const field = first?.field;
  if (
    list.length !== 1 ||
    typeof field !== 'string' ||
    (field !== 'updatedAt' && !DOCUMENT_FIELD.test(field)) ||
    (first.order !== 'asc' && first.order !== 'desc')
  ) {
    throw new BadRequestError(
      'sort supports one entry: {field: "updatedAt" or "content.<path>", order: "asc" | "desc"}.',
      { parameter: 'sort' },
    );
  }
  return { field: field as ListOrder['field'], direction: first.order };
}

/**
 * A whole search body as a saved search stores it: what `SearchContentInput` and the search itself would
 * refuse is refused when saving, so executing it later can't fail on its own query.
 */
export function assertSearchBody(query: Record<string, unknown>): void {
  // A saved search's `content.<path>` fields are checked when it runs, against the type's schema of that time.
  const filter = query.filter as Record<string, unknown> | undefined;
  searchWhere(filter && Object.fromEntries(Object.entries(filter).filter(([field]) => !DOCUMENT_FIELD.test(field))));
  sortOrder(query.sort);
  for (const parameter of ['search', 'query'] as const) {
    const text = query[parameter];
    if (text === undefined || text === null) continue;
    if (typeof text !== 'string') throw new BadRequestError(`${parameter} must be a string.`, { parameter });
    searchWords(text, parameter);
  }
  parseOffsetArgs({ page: query.page as number | undefined, limit: query.limit as number | undefined });
}
