// Records a write transaction locks and changes as plain rows: no entity, identity map or unit of work on the way.
import type { ProjectScope } from '@cp/principal';
import {
  JsonType,
  type EntityClass,
  type EntityManager,
  type EntityMetadata,
  type EntityProperty,
} from '@mikro-orm/postgresql';
import { columnLengthErrors } from './column-lengths';
import { checkExpectedRevision } from './revision';
import { sql } from './transaction-sql';
import { wellFormed } from './well-formed';
import { ValidationFailedError } from '@cp/errors';
import { isDeepStrictEqual } from 'node:util';

/** The statements and column mapping of one entity class, built once per ORM. */
interface Shape {
  meta: EntityMetadata;
  lockOne: string;
  /** For `count` ids, named in the statement (see `write`). */
  lockMany(count: number): string;
  /** The columns a change may write: every persisted one but the key, the revision and the update time. */
  writable: EntityProperty[];
  table: string;
  revision: EntityProperty;
  updatedAt?: EntityProperty;
}

/** A record and its changed columns' values, as `written` gives them. */
interface Change<E> {
  record: E;
  changed: Map<EntityProperty, unknown>;
}

const isJson = (property: EntityProperty) => property.customType instanceof JsonType;
const quote = (name: string) => `"${name}"`;

/**
 * A resource's rows read under a row lock and written back by one `UPDATE` of the columns its change touched. A
 * transition of a managed entity costs its hydration, a snapshot of every JSON column and a comparison of all of
 * them at flush, for a record that is read once and written once; this does the same work in two statements. What
 * the flush did on the way is done here too: the revision grows by one and is compared with the request's
 * `expectedRevision`, the update time moves, and text longer than its column is the client's 422.
 */
export class RowRecords<E extends { id: string; revision: number }> {
  private readonly shapes = new WeakMap<object, Shape>();
  /** Each record's columns as last read or written: JSON ones as their text, to tell what a change touched. */
  private readonly stored = new WeakMap<E, Map<EntityProperty, unknown>>();

  constructor(private readonly entity: EntityClass<E>) {}

  /** The record under a row lock, or null. */
  async lock(tx: EntityManager, scope: ProjectScope, id: string): Promise<E | null> {
    const shape = this.shape(tx);
    const rows = await run(tx, shape.lockOne, [id, scope.organizationId, scope.projectId], true);
    return rows.length ? this.record(tx, shape, rows[0]!) : null;
  }

  /** The records of `ids` in the project, locked by one statement in id order: two batches queue, never deadlock. */
  async lockMany(tx: EntityManager, scope: ProjectScope, ids: readonly string[]): Promise<E[]> {
    if (ids.length === 0) return [];
    const shape = this.shape(tx);
    const rows = await run(tx, shape.lockMany(ids.length), [...ids, scope.organizationId, scope.projectId]);
    return rows.map((row) => this.record(tx, shape, row));
  }

  /**
   * Writes the columns each record's change touched, with its next revision and the update time: one statement for
   * all the records whose changes touched the same columns (a release's hundred publishes are one). A record its
   * change left as it was read is not written.
   */
  async save(tx: EntityManager, records: readonly E[]): Promise<void> {
    const shape = this.shape(tx);
    const groups = new Map<string, { columns: EntityProperty[]; changes: Change<E>[] }>();
    for (const record of records) {
      const changed = this.changes(shape, record);
      if (changed.size === 0) continue;
      checkExpectedRevision(record.id, record.revision);
      const errors = columnLengthErrors(shape.meta, Object.fromEntries([...changed].map(([p, v]) => [p.name, v])));
      if (errors.length) throw new ValidationFailedError(errors);
      const columns = [...changed.keys()];
      const key = columns.map((property) => property.name).join(',');
      const group = groups.get(key) ?? { columns, changes: [] };
      group.changes.push({ record, changed });
      groups.set(key, group);
    }
    const now = new Date();
    for (const { columns, changes } of groups.values()) await this.write(tx, shape, columns, changes, now);
  }

  /** The writable columns whose value differs from the one last read or written, with their new value. */
  private changes(shape: Shape, record: E): Map<EntityProperty, unknown> {
    const stored = this.stored.get(record);
    if (!stored) throw new Error(`${shape.meta.className} ${record.id} was not read by this store.`);
    const changed = new Map<EntityProperty, unknown>();
    for (const property of shape.writable) {
      const value = written(property, (record as Record<string, unknown>)[property.name]);
      const before = stored.get(property);
      if (value === before) continue;
      // The same JSON with its keys in another order (jsonb keeps an order of its own) is no change; its text has the
      // same length, so a document of another length is not parsed again to be compared.
      if (isJson(property) && typeof value === 'string' && typeof before === 'string' && value.length === before.length)
        if (isDeepStrictEqual(JSON.parse(value), JSON.parse(before))) continue;
      changed.set(property, value);
    }
    return changed;
  }

  /** One `UPDATE` of `columns` for every record of `changes`, from their values bound as one JSON parameter. */
  private async write(tx: EntityManager, shape: Shape, columns: EntityProperty[], changes: Change<E>[], now: Date) {
    // Each row as JSON whose members are the columns: a JSON column's text goes in as it is, any other value as JSON.
    const rows = changes.map(({ record, changed }) => {
      const members = [`"id":${JSON.stringify(record.id)}`];
      for (const property of columns) {
        const value = changed.get(property);
        const json = isJson(property) && value !== null ? (value as string) : JSON.stringify(value);
        members.push(`${JSON.stringify(property.fieldNames[0])}:${json}`);
      }
      return `{${members.join(',')}}`;
    });
    const set = columns.map((property) => `${quote(property.fieldNames[0]!)} = v.${quote(property.fieldNames[0]!)}`);
    if (shape.updatedAt) set.push(`${quote(shape.updatedAt.fieldNames[0]!)} = ?`);
    const revision = quote(shape.revision.fieldNames[0]!);
    // The rows by their keys, named in the statement: the planner can't see how many rows the JSON holds (it guesses a
    // hundred), and would hash a join against the whole table rather than look each record up.
    const ids = changes.map(({ record }) => record.id);
    const saved = await run(
      tx,
      `update ${shape.table} as t set ${set.join(', ')}, ${revision} = t.${revision} + 1
        from jsonb_populate_recordset(null::${shape.table}, ?::jsonb) as v
        where t."id" in (${placeholders(ids.length)}) and t."id" = v."id"
        returning t."id", t.${revision} as "revision"`,
      [...(shape.updatedAt ? [now] : []), `[${rows.join(',')}]`, ...ids],
      // One record's update has one text per set of changed columns, a handful of which carry nearly every write.
      ids.length === 1,
    );
    const revisions = new Map(saved.map((row) => [row.id as string, row.revision as number]));
    for (const { record, changed } of changes) {
      Object.assign(record, { revision: revisions.get(record.id) });
      if (shape.updatedAt) Object.assign(record, { [shape.updatedAt.name]: now });
      const stored = this.stored.get(record)!;
      for (const [property, value] of changed) stored.set(property, value);
    }
  }

  private record(tx: EntityManager, shape: Shape, row: Record<string, unknown>): E {
    const record = tx.getDriver().mapResult(row, shape.meta) as E;
    const stored = new Map<EntityProperty, unknown>();
    for (const property of shape.writable)
      stored.set(property, written(property, (record as Record<string, unknown>)[property.name]));
    this.stored.set(record, stored);
    return record;
  }

  private shape(tx: EntityManager): Shape {
    let shape = this.shapes.get(tx.config);
    if (shape) return shape;
    const meta = tx.getMetadata().get(this.entity.name) as EntityMetadata;
    const persisted = meta.props.filter((p) => p.fieldNames?.length && p.persist !== false && !p.generated);
    const revision = persisted.find((p) => p.version)!;
    const updatedAt = persisted.find((p) => p.onUpdate);
    const writable = persisted.filter((p) => !p.primary && p !== revision && p !== updatedAt);
    const table = quote(meta.tableName);
    const select = persisted.map((p) => quote(p.fieldNames[0]!)).join(', ');
    const inProject = `"organization_id" = ? and "project_id" = ?`;
    shape = {
      meta,
      table,
      writable,
      revision,
      updatedAt,
      lockOne: `select ${select} from ${table} where "id" = ? and ${inProject} for update`,
      lockMany: (count) =>
        `select ${select} from ${table} where "id" in (${placeholders(count)}) and ${inProject} order by "id" for update`,
    };
    this.shapes.set(tx.config, shape);
    return shape;
  }
}

/**
 * A value as the column receives it, in the form `save` sends it inside JSON: a JSON column's value as its text, a
 * date as its time, text well formed (a lone UTF-16 surrogate, a string cut inside an emoji, becomes U+FFFD, as it
 * does through the driver; inside JSON it would be an escape PostgreSQL refuses), the rest as is.
 */
function written(property: EntityProperty, value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (isJson(property)) return JSON.stringify(value);
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'string') return wellFormed(value);
  return value;
}

const placeholders = (count: number) => Array.from({ length: count }, () => '?').join(', ');

const run = (tx: EntityManager, query: string, params: unknown[], prepared = false) =>
  sql<Record<string, unknown>>(tx, query, params, prepared);
