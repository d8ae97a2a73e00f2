// Finding content: list filters (D1 aliases), D2 search filters, and full-text conditions shared by both.
import { BadRequestError } from '@cp/errors';
import { EntityStatus, type ProjectScope } from '@cp/graphql';
import { raw, type FilterQuery } from '@mikro-orm/postgresql';
import type { Content } from './content.entity';
import type { ContentListArgs } from './content.inputs';

/** Prefix matching on every word: `hel wor` finds "hello world". */
export function fullText(terms: string): FilterQuery<Content> | undefined {
  const words = terms.match(/[\p{L}\p{N}]+/gu) ?? [];
  if (words.length === 0) return undefined;
  const query = words.map((w) => `${w.toLowerCase()}:*`).join(' & ');
  return { [raw((alias) => `${alias}.search_vector @@ to_tsquery('english', ?)`, [query])]: true } as FilterQuery<Content>;
}

export function listWhere(scope: ProjectScope, args: ContentListArgs): FilterQuery<Content>[] {
  const where: FilterQuery<Content>[] = [{ organizationId: scope.organizationId, projectId: scope.projectId }];
  const typeId = args.typeId ?? args.type ?? args.contentType;
  if (typeId) where.push({ typeId });
  if (args.status) where.push({ status: args.status });
  if (args.isTemplate !== undefined && args.isTemplate !== null) where.push({ isTemplate: args.isTemplate });
  if (args.folderId !== undefined && args.folderId !== null) where.push({ folderId: args.folderId === 'null' ? null : args.folderId });
  const tags = args.tags?.split(',').map((t) => t.trim()).filter(Boolean);
  if (tags?.length) where.push({ tags: { $contains: tags } } as FilterQuery<Content>);
  const text = fullText(args.search ?? '');
  if (text) where.push(text);
  return where;
}

export function parseSort(sort: string | undefined): 'asc' | 'desc' {
  if (sort === undefined || sort === 'updatedAt:desc') return 'desc';
  if (sort === 'updatedAt:asc') return 'asc';
  throw new BadRequestError('sort must be `updatedAt:asc` or `updatedAt:desc`.', { parameter: 'sort', value: sort });
}

const FIELDS: Record<string, string> = {
  type: 'typeId',
  typeId: 'typeId',
  tags: 'tags',
  status: 'status',
  name: 'name',
  createdAt: 'createdAt',
  updatedAt: 'updatedAt',
  'metadata.author': 'metadata.author',
};
const OPERATORS = ['eq', 'neq', 'in', 'all', 'any', 'gte', 'lte', 'gt', 'lt', 'like'];
const DATES = new Set(['createdAt', 'updatedAt']);

/** D2 filter → MikroORM conditions; unknown fields or operators are 400 naming them. */
export function searchWhere(filter: Record<string, unknown> | undefined): FilterQuery<Content>[] {
  return Object.entries(filter ?? {}).flatMap(([field, ops]) => {
    const column = FIELDS[field];
    if (!column) throw new BadRequestError(`Unknown filter field "${field}".`, { field, allowed: Object.keys(FIELDS) });
    if (typeof ops !== 'object' || ops === null || Array.isArray(ops)) {
      throw new BadRequestError(`Filter "${field}" must be an object of operators.`, { field, allowed: OPERATORS });
    }
    return Object.entries(ops).map(([op, value]) => condition(field, column, op, value));
  });
}

function condition(field: string, column: string, op: string, value: unknown): FilterQuery<Content> {
  const v = DATES.has(column) && typeof value === 'string' ? new Date(value) : value;
  if (v instanceof Date && Number.isNaN(v.getTime())) throw new BadRequestError(`Filter "${field}" needs an ISO 8601 date.`, { field, operator: op });
  if (field === 'status' && typeof value === 'string' && !(value in EntityStatus)) {
    throw new BadRequestError(`Unknown status "${value}".`, { field, value });
  }
  const on = (expr: unknown): FilterQuery<Content> =>
    (column === 'metadata.author' ? { metadata: { author: expr } } : { [column]: expr }) as FilterQuery<Content>;
  switch (op) {
    case 'eq':
      return column === 'tags' ? on({ $contains: [v] }) : on(v);
    case 'neq':
      return column === 'tags' ? ({ $not: on({ $contains: [v] }) } as FilterQuery<Content>) : on({ $ne: v });
    case 'in':
      return on({ $in: asArray(field, op, v) });
    case 'all':
      return on({ $contains: asArray(field, op, v) });
    case 'any':
      return { $or: asArray(field, op, v).map((t) => on({ $contains: [t] })) } as FilterQuery<Content>;
    case 'gte':
    case 'lte':
    case 'gt':
    case 'lt':
      return on({ [`$${op}`]: v });
    case 'like': {
      const pattern = String(value).includes('%') ? String(value) : `%${String(value)}%`;
      return on({ $ilike: pattern });
    }
    default:
      throw new BadRequestError(`Unknown operator "${op}" on "${field}".`, { field, operator: op, allowed: OPERATORS });
  }
}

function asArray(field: string, op: string, value: unknown): unknown[] {
  if (!Array.isArray(value)) throw new BadRequestError(`Operator "${op}" on "${field}" needs an array.`, { field, operator: op });
  return value;
}
