// SQL per query shape: a hot read's QueryBuilder runs once per shape of its filter instead of once per request.
import type { Knex } from '@mikro-orm/postgresql';

/** SQL and bindings, ready for `em.getConnection().execute(sql, bindings)`. */
export interface CompiledQuery {
  sql: string;
  bindings: unknown[];
}

/** Where each binding comes from: a leaf of the filter (its index) or a constant of the shape. */
type Slot = { leaf: number } | { constant: unknown };

// eslint-disable-next-line no-control-regex -- NUL can't occur in SQL text, so it marks a slot unambiguously
const SENTINEL = /^\u0000slot:(\d+)\u0000$/;
const sentinel = (i: number) => `\u0000slot:${i}\u0000`;

/**
 * A filter's shape: its structure (keys, operators, array lengths, nulls, booleans) with strings, numbers and dates
 * as numbered leaves. Undefined when the filter holds anything else (raw fragments, class instances, keys that aren't
 * plain names): such filters are built every time.
 */
function shapeOf(value: unknown, leaves: unknown[]): string | undefined {
  if (value === null || value === undefined || typeof value === 'boolean') return String(value);
  if (typeof value === 'string' || typeof value === 'number' || value instanceof Date) {
    leaves.push(value);
    return value instanceof Date ? '?d' : `?${typeof value}`;
  }
  if (Array.isArray(value)) {
    const parts = value.map((v) => shapeOf(v, leaves));
    return parts.includes(undefined) ? undefined : `[${parts.join(',')}]`;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return undefined;
  const parts: string[] = [];
  for (const [key, v] of Object.entries(value)) {
    const part = /^\$?\w+$/.test(key) ? shapeOf(v, leaves) : undefined;
    if (part === undefined) return undefined;
    parts.push(`${key}:${part}`);
  }
  return `{${parts.join(',')}}`;
}

/** The filter with its leaves replaced by numbered sentinels, in the order `shapeOf` numbered them. */
function withSentinels(value: unknown, next: { i: number }): unknown {
  if (value === null || value === undefined || typeof value === 'boolean') return value;
  if (typeof value === 'string' || typeof value === 'number' || value instanceof Date) return sentinel(next.i++);
  if (Array.isArray(value)) return value.map((v) => withSentinels(v, next));
  return Object.fromEntries(Object.entries(value as object).map(([k, v]) => [k, withSentinels(v, next)]));
}

const same = (a: unknown, b: unknown) =>
  a === b || (a instanceof Date && b instanceof Date && a.getTime() === b.getTime());

/**
 * Compiles filters through a QueryBuilder, remembering per shape which binding takes which leaf. A shape is remembered
 * only after proving itself: built once with sentinel leaves and once with the real ones, the SQL must be identical and
 * every binding must be a leaf passed through unchanged or a constant; anything the ORM converts, or a leaf that
 * changes the SQL, keeps that shape on the builder. At most `maxShapes` shapes are kept.
 */
export class QueryShapes<Where> {
  private readonly shapes = new Map<string, { sql: string; slots: Slot[] } | false>();

  constructor(private readonly maxShapes = 256) {}

  /** `key` names everything besides `where` that `build` depends on (options, order, limit). */
  compile(key: string, where: Where, build: (where: Where) => Knex.QueryBuilder): CompiledQuery {
    const leaves: unknown[] = [];
    const shape = shapeOf(where, leaves);
    const id = shape === undefined ? undefined : `${key}|${shape}`;
    const known = id === undefined ? false : this.shapes.get(id);
    if (known) return { sql: known.sql, bindings: known.slots.map((s) => ('leaf' in s ? leaves[s.leaf] : s.constant)) };
    const real = build(where).toSQL();
    if (id !== undefined && known === undefined && this.shapes.size < this.maxShapes) {
      this.shapes.set(id, learn(build(withSentinels(where, { i: 0 }) as Where).toSQL(), real, leaves) ?? false);
    }
    return { sql: real.sql, bindings: [...real.bindings] };
  }
}

function learn(probe: Knex.Sql, real: Knex.Sql, leaves: unknown[]): { sql: string; slots: Slot[] } | undefined {
  if (probe.sql !== real.sql || probe.bindings.length !== real.bindings.length) return undefined;
  const slots: Slot[] = probe.bindings.map((b) => {
    const match = typeof b === 'string' ? SENTINEL.exec(b) : null;
    return match ? { leaf: Number(match[1]) } : { constant: b };
  });
  const consistent = slots.every((s, j) => same('leaf' in s ? leaves[s.leaf] : s.constant, real.bindings[j]));
  return consistent ? { sql: real.sql, slots } : undefined;
}
