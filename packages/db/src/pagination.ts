// Pagination: cursor lists (limit + opaque lastKey/afterKey) and offset lists (page + limit + total).
import { createHash } from 'node:crypto';
import { BadRequestError } from '@cp/errors';
import { raw, RawQueryFragment, type EntityManager, type EntityName, type FilterQuery } from '@mikro-orm/postgresql';
import { ArgsType, Directive, Field, Int, ObjectType, type ClassType } from 'type-graphql';

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;

@ArgsType()
export class CursorArgs {
  @Field(() => Int, { nullable: true, description: `Items per page, 1 to ${MAX_LIMIT} (default ${DEFAULT_LIMIT}).` })
  limit?: number;

  @Field({ nullable: true, description: 'Opaque cursor from the previous page’s `pagination.lastKey`.' })
  lastKey?: string;

  @Field({ nullable: true, description: 'Alias of `lastKey`.' })
  afterKey?: string;
}

@ObjectType({ description: 'Cursor pagination: `lastKey` is present only when another page exists.' })
@Directive('@shareable')
export class CursorPagination {
  @Field({ nullable: true, description: 'Pass as `lastKey` to get the next page; absent on the last page.' })
  lastKey?: string;
}

@ArgsType()
export class OffsetArgs {
  @Field(() => Int, { nullable: true, description: 'Page number, 1-based (default 1).' })
  page?: number;

  @Field(() => Int, { nullable: true, description: `Items per page, 1 to ${MAX_LIMIT} (default ${DEFAULT_LIMIT}).` })
  limit?: number;
}

@ObjectType({ description: 'Offset pagination.' })
@Directive('@shareable')
export class OffsetPagination {
  @Field(() => Int, { description: 'The page returned, 1-based.' })
  page!: number;

  @Field(() => Int, { description: 'Items per page.' })
  limit!: number;

  @Field(() => Int, { description: 'Items across all pages.' })
  total!: number;
}

export interface ListPage<T, P> {
  data: T[];
  pagination: P;
}

/** A `{data, pagination}` object type for a cursor list of `item` (the list shape). */
export function CursorList<T extends object>(item: ClassType<T>, name: string) {
  @ObjectType(name, { description: `A page of ${item.name} items.` })
  class List {
    @Field(() => [item], { description: 'The items of this page.' })
    data!: T[];

    @Field(() => CursorPagination, { description: 'Where the next page starts.' })
    pagination!: CursorPagination;
  }
  return List;
}

/** A `{data, pagination}` object type for an offset list of `item`. */
export function OffsetList<T extends object>(item: ClassType<T>, name: string) {
  @ObjectType(name, { description: `A page of ${item.name} items.` })
  class List {
    @Field(() => [item], { description: 'The items of this page.' })
    data!: T[];

    @Field(() => OffsetPagination, { description: 'Page, size and total.' })
    pagination!: OffsetPagination;
  }
  return List;
}

export function parseLimit(limit: number | undefined | null): number {
  if (limit === undefined || limit === null) return DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw new BadRequestError(`limit must be an integer from 1 to ${MAX_LIMIT}.`, { parameter: 'limit', value: limit });
  }
  return limit;
}

export function parseOffsetArgs(args: OffsetArgs): { page: number; limit: number; offset: number } {
  const limit = parseLimit(args.limit);
  const page = args.page ?? 1;
  if (!Number.isInteger(page) || page < 1) {
    throw new BadRequestError('page must be an integer of at least 1.', { parameter: 'page', value: page });
  }
  return { page, limit, offset: (page - 1) * limit };
}

/** A keyset position: the sort value and id of the last item seen. */
export interface CursorPosition {
  value: string;
  id: string;
}

// Not a secret: the checksum only makes accidental or casual edits detectable (tampered cursor → 400).
const checksum = (payload: string) => createHash('sha256').update(`cursor:${payload}`).digest('base64url').slice(0, 10);

export function encodeCursor(position: CursorPosition): string {
  const payload = Buffer.from(JSON.stringify([position.value, position.id])).toString('base64url');
  return `${payload}.${checksum(payload)}`;
}

export function decodeCursor(cursor: string, parameter = 'lastKey'): CursorPosition {
  const invalid = () => new BadRequestError(`${parameter} is not a valid cursor.`, { parameter });
  const [payload, sum, ...rest] = cursor.split('.');
  if (!payload || rest.length > 0 || sum !== checksum(payload)) throw invalid();
  try {
    const parsed: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    if (Array.isArray(parsed) && parsed.length === 2 && parsed.every((v) => typeof v === 'string')) {
      return { value: parsed[0], id: parsed[1] };
    }
  } catch {
    // fall through to the 400 below
  }
  throw invalid();
}

/**
 * A sort key computed in SQL (a JSON path, say) instead of a Date property: its SQL over the table's alias, the type a
 * cursor's value is cast to for comparing, and a row's value as the cursor keeps it.
 */
export interface KeysetExpression<T> {
  sql(alias: string): string;
  cast: string;
  valueOf(row: T): string;
}

export interface KeysetOptions<T> {
  where: FilterQuery<T>;
  /** A Date-valued property to sort on; `id` breaks ties. */
  sortField: keyof T & string;
  /** Sorts on this instead of `sortField`; `id` still breaks ties. */
  sortBy?: KeysetExpression<T>;
  direction: 'asc' | 'desc';
  args: CursorArgs;
  populate?: string[];
  /**
   * Reads the rows instead of `em.find` (e.g. plain rows in one query for a read-only list, without entities or the
   * identity map); gets the page's conditions, order and `limit + 1`.
   */
  rows?: (where: FilterQuery<T>, orderBy: Record<string, 'asc' | 'desc'>, limit: number) => Promise<T[]>;
}

/** One page of a keyset-paginated query: stable under concurrent inserts, `limit + 1` rows read to detect more. */
export async function keysetPage<T extends { id: string }>(
  em: EntityManager,
  entity: EntityName<T>,
  options: KeysetOptions<T>,
): Promise<ListPage<T, CursorPagination>> {
  const limit = parseLimit(options.args.limit);
  const given = options.args.lastKey ?? options.args.afterKey;
  const after = given ? decodeCursor(given, options.args.lastKey ? 'lastKey' : 'afterKey') : undefined;
  const op = options.direction === 'desc' ? '$lt' : '$gt';
  let where = options.where;
  const { sortBy } = options;
  if (after && sortBy) {
    // A cursor of another order (a date) is not a JSON value: the caller's 400, not the database's error.
    try {
      JSON.parse(after.value);
    } catch {
      throw new BadRequestError('lastKey is not a valid cursor.', { parameter: 'lastKey' });
    }
    // Parenthesised whole: MikroORM renders a raw key as `<sql> = true`.
    const past = raw(
      (alias) => `((${sortBy.sql(alias)}, ${alias}.id) ${op === '$lt' ? '<' : '>'} (?::${sortBy.cast}, ?))`,
      [after.value, after.id],
    );
    where = { $and: [options.where, { [past]: true }] } as FilterQuery<T>;
  } else if (after) {
    const at = new Date(after.value);
    if (Number.isNaN(at.getTime()))
      throw new BadRequestError('lastKey is not a valid cursor.', { parameter: 'lastKey' });
    const past = { $or: [{ [options.sortField]: { [op]: at } }, { [options.sortField]: at, id: { [op]: after.id } }] };
    where = { $and: [options.where, past] } as FilterQuery<T>;
  }
  const sortKey = sortBy ? raw((alias) => sortBy.sql(alias)) : options.sortField;
  const orderBy = { [sortKey]: options.direction, id: options.direction } as Record<string, 'asc' | 'desc'>;
  const rows = options.rows
    ? await options.rows(where, orderBy, limit + 1)
    : await em.find(entity, where, {
        orderBy: orderBy as never,
        limit: limit + 1,
        populate: options.populate as never,
      });
  const data = rows.slice(0, limit);
  const last = data.at(-1);
  const pagination: CursorPagination = {};
  if (rows.length > limit && last) {
    const value = sortBy
      ? sortBy.valueOf(last)
      : ((last as Record<string, unknown>)[options.sortField] as Date).toISOString();
    pagination.lastKey = encodeCursor({ value, id: last.id });
  }
  return { data, pagination };
}

/**
 * One page of an offset-paginated query, with its exact total (offset lists, searches). A page that isn't full
 * already tells the total, so only a full page, or one past the end, pays for counting every match.
 */
export async function offsetPage<T extends object>(
  em: EntityManager,
  entity: EntityName<T>,
  where: FilterQuery<T>,
  args: OffsetArgs,
  orderBy: Record<string, 'asc' | 'desc'> = { createdAt: 'asc', id: 'asc' },
  /** Reads the page another way than `em.find` (e.g. plain rows); the default hydrates entities. */
  rows?: (
    where: FilterQuery<T>,
    orderBy: Record<string, 'asc' | 'desc'>,
    limit: number,
    offset: number,
  ) => Promise<T[]>,
): Promise<ListPage<T, OffsetPagination>> {
  const { page, limit, offset } = parseOffsetArgs(args);
  // A `raw()` condition (full-text search) is consumed by the first query that renders it; inside `run` it stays
  // known for the count too (as in `em.findAndCount`).
  return RawQueryFragment.run(async () => {
    const data = rows
      ? await rows(where, orderBy, limit, offset)
      : await em.find(entity, where, { orderBy: orderBy as never, limit, offset });
    const counted = data.length < limit && (data.length > 0 || offset === 0);
    const total = counted ? offset + data.length : await em.count(entity, where);
    return { data, pagination: { page, limit, total } };
  });
}

/** A `{data}` object type for a version list, newest first (version lists answer `{data}` without pagination). */
export function VersionList<T extends object>(item: ClassType<T>, name: string) {
  @ObjectType(name, { description: `Published versions (${item.name}), newest first.` })
  class List {
    @Field(() => [item], { description: 'Every published version, newest first.' })
    data!: T[];
  }
  return List;
}
