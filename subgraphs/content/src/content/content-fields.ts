// Filters on the fields inside a document (`content.<path>`): checked against the content type's schema, then run as
// SQL on the `content` column of the working rows or of the published projection.
import { escapeLike } from '@cp/db';
import { BadRequestError } from '@cp/errors';
import { raw, type FilterQuery } from '@mikro-orm/postgresql';
import { isLocalized } from '../shared/json-schema';
import { STORED, valueIn } from './content-locales';
import type { Content } from './content.entity';

/** A filter field naming a property of the document. */
export const DOCUMENT_FIELD = /^content\.(.+)$/;

/** What a property holds decides its operators: JSON Schema's scalar types, a reference, or anything else. */
type PropertyKind = 'string' | 'number' | 'integer' | 'boolean' | 'reference' | 'other';

const COMPARISONS = ['gt', 'gte', 'lt', 'lte'];
const OPERATORS: Record<PropertyKind, string[]> = {
  string: ['eq', 'neq', 'in', 'like', ...COMPARISONS, 'exists'],
  number: ['eq', 'neq', 'in', ...COMPARISONS, 'exists'],
  integer: ['eq', 'neq', 'in', ...COMPARISONS, 'exists'],
  boolean: ['eq', 'neq', 'exists'],
  reference: ['eq', 'in', 'exists'],
  other: ['exists'],
};

/** At most this many values in an `in`: each is one index probe. */
const MAX_IN_VALUES = 100;

/** Matches no entry (`in` of nothing). */
export const NOTHING = { id: { $in: [] } } as FilterQuery<Content>;

type SchemaNode = Record<string, unknown>;

/**
 * The kind of the property at `path` in a content type's schema. A path the schema does not declare, or one that
 * goes into an array, is 400 naming the field.
 */
function propertyKind(
  schema: SchemaNode,
  field: string,
  path: string[],
  details: Record<string, unknown> = {},
): PropertyKind {
  let node: SchemaNode = schema;
  for (const [i, segment] of path.entries()) {
    const types = typesOf(node);
    if (types.includes('array'))
      throw new BadRequestError(`"${field}" goes into an array: only object properties can be filtered on.`, {
        ...details,
        field,
      });
    const properties = node.properties as Record<string, SchemaNode> | undefined;
    const next = properties && Object.hasOwn(properties, segment) ? properties[segment] : undefined;
    if (!next || typeof next !== 'object') {
      const at = path.slice(0, i + 1).join('.');
      throw new BadRequestError(`The content type's schema declares no property "${at}".`, { ...details, field });
    }
    node = next;
  }
  if (node.reference !== undefined) return 'reference';
  const [type] = typesOf(node).filter((t) => t !== 'null');
  return type === 'string' || type === 'number' || type === 'integer' || type === 'boolean' ? type : 'other';
}

/**
 * Refuses (400 naming the field, with `details`) a `content.<path>` the schema does not declare or that goes into an
 * array: the checks of a filter's path, for other uses of a path (`select`).
 */
export function assertDeclaredPath(
  schema: SchemaNode,
  field: string,
  path: string[],
  details: Record<string, unknown>,
): void {
  propertyKind(schema, field, path, details);
}

function typesOf(node: SchemaNode): string[] {
  const type = node.type;
  return Array.isArray(type)
    ? type.filter((t): t is string => typeof t === 'string')
    : typeof type === 'string'
      ? [type]
      : [];
}

/**
 * One `content.<path>` filter as conditions on the `content` column. `eq`, `neq` and `in` are containment (`@>`), so
 * the published projection's `jsonb_path_ops` index answers them; comparisons hold only between values of the
 * property's own JSON type, in the order a sort on the property uses (PostgreSQL's order of JSON values).
 */
export function documentCondition(
  schema: SchemaNode,
  field: string,
  path: string[],
  op: string,
  value: unknown,
  chain?: readonly string[],
): FilterQuery<Content> {
  const kind = propertyKind(schema, field, path);
  const at = located(schema, path, chain);
  if (!OPERATORS[kind].includes(op)) {
    throw new BadRequestError(`Operator "${op}" does not apply to "${field}".`, {
      field,
      operator: op,
      allowed: OPERATORS[kind],
    });
  }
  // MikroORM renders a raw key as `<sql> = true`: the parentheses keep that a comparison of the whole condition.
  const where = (sql: (alias: string) => string, params: unknown[]) =>
    ({ [raw((alias) => `(${sql(alias)})`, params)]: true }) as FilterQuery<Content>;
  switch (op) {
    case 'exists': {
      if (value !== true && value !== false && value !== 'true' && value !== 'false')
        throw new BadRequestError(`"exists" on "${field}" takes true or false.`, { field, operator: op });
      const present = value === true || value === 'true';
      return where(
        (a) => `coalesce(jsonb_typeof(${at.value(a)}), 'null') ${present ? '<>' : '='} 'null'`,
        at.valueParams,
      );
    }
    case 'eq':
      return where((a) => at.equals(a), at.equalsParams(typed(kind, field, op, value)));
    case 'neq':
      return where((a) => `not ${at.equals(a)}`, at.equalsParams(typed(kind, field, op, value)));
    case 'in': {
      const values = (Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : undefined)?.map(
        (v) => typed(kind, field, op, v),
      );
      if (!values)
        throw new BadRequestError(`"in" on "${field}" takes an array (or comma-separated values).`, {
          field,
          operator: op,
        });
      if (values.length > MAX_IN_VALUES)
        throw new BadRequestError(`"in" on "${field}" takes at most ${MAX_IN_VALUES} values.`, { field, operator: op });
      if (values.length === 0) return NOTHING;
      return where(
        (a) => `(${values.map(() => at.equals(a)).join(' or ')})`,
        values.flatMap((v) => at.equalsParams(v)),
      );
    }
    case 'like':
      return where(
        (a) => `((${at.value(a)}) #>> '{}') ilike ?`,
        [...at.valueParams, likePattern(field, typed(kind, field, op, value) as string)],
      );
    default: {
      const comparison = { gt: '>', gte: '>=', lt: '<', lte: '<=' }[op]!;
      const type = kind === 'string' ? 'string' : 'number';
      return where(
        (a) => `jsonb_typeof(${at.value(a)}) = '${type}' and (${at.value(a)}) ${comparison} ?::jsonb`,
        [...at.valueParams, ...at.valueParams, JSON.stringify(typed(kind, field, op, value))],
      );
    }
  }
}

/** Where a property's value is read: SQL for "the value equals v" and for the value itself, with their bindings. */
interface Location {
  /** Containment (`@>`), so the `jsonb_path_ops` index answers it; `equalsParams(v)` are its bindings. */
  equals(alias: string): string;
  equalsParams(value: unknown): unknown[];
  /** The value as `jsonb` (SQL null when absent); `valueParams` are its bindings. */
  value(alias: string): string;
  valueParams: unknown[];
}

/**
 * A property's value as SQL. For a localized property in a locale's `chain` it is the value of the first locale of the
 * chain that has one (a stored locale never holds null, content-locales.ts): containment of the path through that
 * locale, for each step with "no value in the earlier locales" beside it, so every step is still an index probe.
 */
function located(schema: SchemaNode, path: string[], chain: readonly string[] | undefined): Location {
  const properties = schema.properties as Record<string, SchemaNode> | undefined;
  const localized = chain && isLocalized(properties?.[path[0]]);
  if (!localized) {
    return {
      equals: (a) => `${a}.content @> ?::jsonb`,
      equalsParams: (v) => [JSON.stringify(nested(path, v))],
      value: (a) => `${a}.content #> ?::text[]`,
      valueParams: [pgPath(path)],
    };
  }
  const [key, ...rest] = path;
  const absent = (a: string) => `${a}.content #> ?::text[] is null`;
  const steps = chain.map((code, i) => ({
    equals: (a: string) => [`${a}.content @> ?::jsonb`, ...chain.slice(0, i).map(() => absent(a))].join(' and '),
    equalsParams: (v: unknown) => [
      JSON.stringify(nested([key, code, ...rest], v)),
      ...chain.slice(0, i).map((earlier) => pgPath([key, earlier])),
    ],
  }));
  return {
    equals: (a) => `(${steps.map((s) => `(${s.equals(a)})`).join(' or ')})`,
    equalsParams: (v) => steps.flatMap((s) => s.equalsParams(v)),
    value: (a) =>
      `(case ${chain.map(() => `when ${a}.content #> ?::text[] is not null then ${a}.content #> ?::text[]`).join(' ')} end)`,
    valueParams: chain.flatMap((code) => [pgPath([key, code]), pgPath([key, code, ...rest])]),
  };
}

/** How a list sorts on a document property: its SQL over a table alias, and a row's value as a cursor keeps it. */
export interface DocumentSortKey {
  sql(alias: string): string;
  valueOf(row: { content?: Record<string, unknown> }): string;
}

/**
 * The sort key of `content.<path>`: the property's JSON value, a missing one as JSON `null`, so every entry has a
 * place in PostgreSQL's total order of JSON values (null, then strings, numbers, booleans; each type in its own
 * order) and a cursor compares the pair (value, id). Only scalar properties sort; an object or array is 400.
 */
export function documentSortKey(schema: SchemaNode, field: string, chain?: readonly string[]): DocumentSortKey {
  const path = DOCUMENT_FIELD.exec(field)![1].split('.');
  if (propertyKind(schema, field, path) === 'other')
    throw new BadRequestError(`"${field}" is not a string, number, boolean or reference: it can't be sorted on.`, {
      field,
      parameter: 'sort',
    });
  const at = located(schema, path, chain);
  // The path is a literal of the SQL text (an ORDER BY takes no bindings here); its quotes doubled.
  const literals = at.valueParams.map((p) => `'${String(p).replace(/'/g, "''")}'::text[]`);
  const [key, ...rest] = path;
  const valueAt = (document: unknown, steps: string[]) =>
    steps.reduce<unknown>((node, step) => (node as Record<string, unknown> | undefined)?.[step], document);
  return {
    sql: (alias) => {
      let i = 0;
      return `coalesce(${at.value(alias).replace(/\?::text\[\]/g, () => literals[i++])}, 'null'::jsonb)`;
    },
    // From the stored document, as the SQL reads it: the answer's is localized by the row's own type version, which
    // may treat the property otherwise than the schema this sort follows (and holds only current locales with `*`).
    valueOf: (row) => {
      const stored = (row as { [STORED]?: Record<string, unknown> })[STORED] ?? row.content;
      const value =
        chain && isLocalized((schema.properties as Record<string, unknown> | undefined)?.[key])
          ? valueAt(valueIn(stored?.[key], { chain }), rest)
          : valueAt(stored, path);
      return JSON.stringify(value ?? null);
    },
  };
}

/**
 * A filter value as the property's type. From a query string every value is text (`content.price=10`), so text that
 * spells a number or a boolean counts as one; anything else of the wrong type is 400 naming the field.
 */
function typed(kind: PropertyKind, field: string, op: string, value: unknown): string | number | boolean {
  const refuse = (expected: string) =>
    new BadRequestError(`"${field}" (${op}) takes ${expected}.`, { field, operator: op, value });
  switch (kind) {
    case 'number':
    case 'integer': {
      const n =
        typeof value === 'number' ? value : typeof value === 'string' && NUMBER.test(value) ? Number(value) : NaN;
      if (!Number.isFinite(n) || (kind === 'integer' && !Number.isInteger(n)))
        throw refuse(kind === 'integer' ? 'an integer' : 'a number');
      return n;
    }
    case 'boolean':
      if (value === true || value === 'true') return true;
      if (value === false || value === 'false') return false;
      throw refuse('true or false');
    default:
      if (typeof value !== 'string') throw refuse('a string');
      return value;
  }
}

/**
 * A `like` value as an `ilike` pattern: without `%` a literal substring (its `_` and `\\` escaped), with `%` the caller's
 * pattern, which may not end with a lone backslash (it would escape nothing).
 */
export function likePattern(field: string, text: string): string {
  if (!text.includes('%')) return `%${escapeLike(text)}%`;
  if (/(?<!\\)(?:\\\\)*\\$/.test(text)) {
    throw new BadRequestError("A `like` pattern can't end with a lone backslash: it escapes the character after it.", {
      field,
      operator: 'like',
    });
  }
  return text;
}

const NUMBER = /^-?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/** `{"a": {"b": value}}` for the path `a.b`. */
function nested(path: string[], value: unknown): unknown {
  return path.reduceRight<unknown>((inner, key) => ({ [key]: inner }), value);
}

/** A PostgreSQL `text[]` literal of the path, sent as a bound parameter (each element quoted and escaped). */
function pgPath(path: string[]): string {
  return `{${path.map((p) => `"${p.replace(/[\\"]/g, (c) => `\\${c}`)}"`).join(',')}}`;
}
