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
import { ValidationFailedError } from '@cp/errors';

/** The statements and column mapping of one entity class, built once per ORM. */
interface Shape {
  meta: EntityMetadata;
  lockOne: string;
  lockMany: string;
  /** The columns a change may write: every persisted one but the key, the revision and the update time. */
  writable: EntityProperty[];
  table: string;
  revision: EntityProperty;
  updatedAt?: EntityProperty;
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
    const rows = await run(tx, shape.lockOne, [id, scope.organizationId, scope.projectId]);
    return rows.length ? this.record(tx, shape, rows[0]!) : null;
  }

  /** The records of `ids` the project holds, locked by one statement in id order (two batches queue, never deadlock). */
  async lockMany(tx: EntityManager, scope: ProjectScope, ids: readonly string[]): Promise<E[]> {
    if (ids.length === 0) return [];
    const shape = this.shape(tx);
    const rows = await run(tx, shape.lockMany, [JSON.stringify(ids), scope.organizationId, scope.projectId]);
    return rows.map((row) => this.record(tx, shape, row));
  }

  /**
   * Writes the columns each record's change touched, with its next revision and the update time, in one statement
   * however many records (a release's hundred entries). A record its change left as it was read is not written.
   */
  async save(tx: EntityManager, records: readonly E[]): Promise<void> {
    const shape = this.shape(tx);
    const changes: { record: E; changed: Map<EntityProperty, unknown> }[] = [];
    const columns = new Set<EntityProperty>();
    for (const record of records) {
      const stored = this.stored.get(record);
      if (!stored) throw new Error(`${shape.meta.className} ${record.id} was not read by this store.`);
      const changed = new Map<EntityProperty, unknown>();
      for (const property of shape.writable) {
        const value = written(property, (record as Record<string, unknown>)[property.name]);
        if (value !== stored.get(property)) changed.set(property, value);
      }
      if (changed.size === 0) continue;
      checkExpectedRevision(record.id, record.revision);
      const errors = columnLengthErrors(shape.meta, Object.fromEntries([...changed].map(([p, v]) => [p.name, v])));
      if (errors.length) throw new ValidationFailedError(errors);
      for (const property of changed.keys()) columns.add(property);
      changes.push({ record, changed });
    }
    if (changes.length === 0) return;
    const now = new Date();
    // Each row as JSON whose members are the columns: a JSON column's text goes in as it is, any other value as JSON.
    const rows = changes.map(({ record, changed }) => {
      const members = [`"id":${JSON.stringify(record.id)}`];
      for (const property of columns) {
        const value = changed.has(property) ? changed.get(property) : this.stored.get(record)!.get(property);
        const json = isJson(property) && value !== null ? (value as string) : JSON.stringify(value);
        members.push(`${JSON.stringify(property.fieldNames[0])}:${json}`);
      }
      return `{${members.join(',')}}`;
    });
    const set = [...columns, ...(shape.updatedAt ? [shape.updatedAt] : [])].map((property) => {
      const column = quote(property.fieldNames[0]!);
      return property === shape.updatedAt ? `${column} = ?` : `${column} = v.${column}`;
    });
    const revision = quote(shape.revision.fieldNames[0]!);
    const saved = await run(
      tx,
      `update ${shape.table} as t set ${set.join(', ')}, ${revision} = t.${revision} + 1
        from jsonb_populate_recordset(null::${shape.table}, ?::jsonb) as v where t."id" = v."id"
        returning t."id", t.${revision} as "revision"`,
      [...(shape.updatedAt ? [now] : []), `[${rows.join(',')}]`],
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
      lockMany: `select ${select} from ${table} where "id" in (select jsonb_array_elements_text(?::jsonb)) and ${inProject} order by "id" for update`,
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
  if (typeof value === 'string') return Buffer.from(value, 'utf8').toString('utf8');
  return value;
}

function run(tx: EntityManager, sql: string, params: unknown[]): Promise<Record<string, unknown>[]> {
  return tx.getConnection().execute(sql, params, 'all', tx.getTransactionContext()) as Promise<
    Record<string, unknown>[]
  >;
}
