// The write template of versioned resources: row lock, If-Match, state table, change and event.
import { AppError } from '@cp/errors';
import type { ProjectScope } from '@cp/principal';
import type { EntityStatus } from './entity-status';
import { LockMode, type EntityClass, type EntityManager } from '@mikro-orm/postgresql';
import type { EventAction, EventResourceType } from './events/event.entity';
import { insertEvents, recordEvent, type EventInput } from './events/record-event';
import { transactionalNamed } from './unique-violation';

/** Every lifecycle action with the event it records. */
export const LIFECYCLE_EVENTS = {
  update: 'updated',
  publish: 'published',
  unpublish: 'unpublished',
  discard: 'discarded',
  rollback: 'rolledBack',
  delete: 'deleted',
  restore: 'restored',
  migrate: 'migrated',
} as const satisfies Record<string, EventAction>;

export type LifecycleAction = keyof typeof LIFECYCLE_EVENTS;

/** What the template reads of a record: its status, its last published version and its (unique) name. */
export interface LifecycleRecord {
  status: EntityStatus;
  lastPublishedVersion?: number | null;
  name: string;
}

export interface Lifecycle<E extends LifecycleRecord, A extends LifecycleAction> {
  resourceType: EventResourceType;
  /** Names are unique per project: a violation is 409 NAME_TAKEN for this resource. Without it, a plain transaction. */
  namedAs?: string;
  /** The record under a row lock (`SELECT … FOR UPDATE`), or 404. */
  lock(tx: EntityManager, scope: ProjectScope, id: string): Promise<E>;
  /** The state table: 409 INVALID_STATUS_TRANSITION with `currentStatus` / `requestedStatus`. */
  guard(current: EntityStatus, action: A): void;
  /** Whether API keys may see the event; `wasPublished`: a version had been published before the change. */
  published?(action: A, wasPublished: boolean): boolean;
  /**
   * Writes changed records (plain rows, `RowRecords`): a transition's one, or a batch's all at once; their events are
   * then inserted as rows too. Absent: `lock` gives managed entities, which the transaction's flush writes with their
   * events.
   */
  save?(tx: EntityManager, records: readonly E[]): Promise<void>;
}

/** A batch's row locks: every record of `ids` the project holds, taken by one statement in id order. */
export type LockAll<E> = (tx: EntityManager, scope: ProjectScope, ids: readonly string[]) => Promise<E[]>;

/** One transition's change to the locked record; returns the version its event names (nothing or null: none). */
export type LifecycleChange<E> = (tx: EntityManager, record: E) => Promise<number | null | void>;

/**
 * The transition function of `lifecycle`. Everything runs in one transaction: the row lock makes concurrent writes
 * queue, so `If-Match` / `expectedRevision` (compared when the change is written) sees the revision being changed and
 * a new version row gets the next consecutive number; the event commits with the change or not at all. The name for
 * NAME_TAKEN is read after the change: discard and rollback bring back an earlier name, which may be taken since.
 */
export function lifecycleTransition<E extends LifecycleRecord, A extends LifecycleAction>(lifecycle: Lifecycle<E, A>) {
  return (
    em: EntityManager,
    scope: ProjectScope,
    id: string,
    action: A,
    actorId: string,
    change: LifecycleChange<E>,
  ): Promise<E> => {
    let name = '';
    const work = async (tx: EntityManager): Promise<E> => {
      const record = await lifecycle.lock(tx, scope, id);
      const event = await applyTransition(lifecycle, tx, scope, id, record, action, actorId, change);
      await write(lifecycle, tx, [record], [event]);
      name = record.name;
      return record;
    };
    if (lifecycle.namedAs === undefined) return em.transactional(work);
    return transactionalNamed(em, lifecycle.namedAs, () => name, work);
  };
}

/** One record's outcome in a batch: the changed record, or the error its own transition would have answered. */
export type BatchOutcome<E> = { id: string; record: E; error?: undefined } | { id: string; error: AppError };

/**
 * Transitions of many records in the caller's transaction (a release applies all or nothing): every record of the
 * project locked by one statement in id order, whatever the actions, so two batches sharing records queue instead of
 * deadlocking; then, in the order given, the state table, the change and the event of each, exactly as
 * `lifecycleTransition` applies them; then the changed records are written by one `save` and their events by one
 * insert (entities and their events: by the caller's flush, in a few batched statements). A record refused with a known error
 * is reported and the others still run, so the caller sees every problem; the caller must not commit then (a refused
 * change may have left its record half changed). An id the statement did not find gets the error a single transition
 * would have given (`lock`'s 404).
 */
export function lifecycleBatch<E extends LifecycleRecord & { id: string }, A extends LifecycleAction>(
  lifecycle: Lifecycle<E, A>,
  lockAll: LockAll<E>,
) {
  return async (
    tx: EntityManager,
    scope: ProjectScope,
    items: readonly { id: string; action: A }[],
    actorId: string,
    changeOf: (action: A) => LifecycleChange<E>,
  ): Promise<BatchOutcome<E>[]> => {
    const ids = [...new Set(items.map((item) => item.id))].sort();
    const records = new Map((ids.length ? await lockAll(tx, scope, ids) : []).map((record) => [record.id, record]));
    const outcomes: BatchOutcome<E>[] = [];
    const events: EventInput[] = [];
    for (const { id, action } of items) {
      try {
        const record = records.get(id) ?? (await lifecycle.lock(tx, scope, id));
        events.push(await applyTransition(lifecycle, tx, scope, id, record, action, actorId, changeOf(action)));
        outcomes.push({ id, record });
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        outcomes.push({ id, error: err });
      }
    }
    // A record refused by its lock or the state table is untouched; one transitioned twice is written once.
    await write(lifecycle, tx, [...new Set(outcomes.flatMap((o) => (o.error ? [] : [o.record])))], events);
    return outcomes;
  };
}

/**
 * The transitioned records and their events: rows written by `save`, then the events inserted in the order of their
 * transitions; or, for managed entities, the events recorded for the transaction's flush.
 */
async function write<E extends LifecycleRecord, A extends LifecycleAction>(
  lifecycle: Lifecycle<E, A>,
  tx: EntityManager,
  records: readonly E[],
  events: readonly EventInput[],
): Promise<void> {
  if (!lifecycle.save) return events.forEach((event) => recordEvent(tx, event));
  await lifecycle.save(tx, records);
  await insertEvents(tx, events);
}

/** The state table and the change, on a record the transaction holds under its row lock; the event it records. */
async function applyTransition<E extends LifecycleRecord, A extends LifecycleAction>(
  lifecycle: Lifecycle<E, A>,
  tx: EntityManager,
  scope: ProjectScope,
  id: string,
  record: E,
  action: A,
  actorId: string,
  change: LifecycleChange<E>,
): Promise<EventInput> {
  lifecycle.guard(record.status, action);
  const wasPublished = Boolean(record.lastPublishedVersion);
  const version = (await change(tx, record)) ?? null;
  const event = { resourceType: lifecycle.resourceType, action: LIFECYCLE_EVENTS[action], resourceId: id, version };
  return { ...event, ...scope, actorId, published: lifecycle.published?.(action, wasPublished) ?? false };
}

/** `LockAll` of managed entities. */
export function lockEntities<E extends { id: string }>(entity: EntityClass<E>): LockAll<E> {
  return (tx, scope, ids) =>
    tx.find(entity, { id: { $in: ids }, organizationId: scope.organizationId, projectId: scope.projectId } as never, {
      lockMode: LockMode.PESSIMISTIC_WRITE,
      orderBy: { id: 'asc' } as never,
    });
}

/** The number of the next version a publish creates: consecutive from 1 (the unique key backs the row lock up). */
export function nextVersion(record: LifecycleRecord): number {
  return (record.lastPublishedVersion ?? 0) + 1;
}
