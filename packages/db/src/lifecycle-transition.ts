// The write template of versioned resources: row lock, If-Match, state table, change and event.
import type { ProjectScope } from '@cp/principal';
import type { EntityStatus } from './entity-status';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { EventAction, EventResourceType } from './events/event.entity';
import { recordEvent } from './events/record-event';
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
}

/** One transition's change to the locked record; returns the version its event names (nothing or null: none). */
export type LifecycleChange<E> = (tx: EntityManager, record: E) => Promise<number | null | void>;

/**
 * The transition function of `lifecycle`. Everything runs in one transaction: the row lock makes concurrent writes
 * queue, so `If-Match` / `expectedRevision` (compared at flush) sees the revision being changed and a new
 * version row gets the next consecutive number; the event commits with the change or not at all. The name for
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
      lifecycle.guard(record.status, action);
      const wasPublished = Boolean(record.lastPublishedVersion);
      const version = (await change(tx, record)) ?? null;
      name = record.name;
      const event = { resourceType: lifecycle.resourceType, action: LIFECYCLE_EVENTS[action], resourceId: id, version };
      recordEvent(tx, { ...event, ...scope, actorId, published: lifecycle.published?.(action, wasPublished) ?? false });
      return record;
    };
    if (lifecycle.namedAs === undefined) return em.transactional(work);
    return transactionalNamed(em, lifecycle.namedAs, () => name, work);
  };
}

/** The number of the next version a publish creates: consecutive from 1 (the unique key backs the row lock up). */
export function nextVersion(record: LifecycleRecord): number {
  return (record.lastPublishedVersion ?? 0) + 1;
}
