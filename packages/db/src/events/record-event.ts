// The one helper every write uses to add its event to the unit of work it is committing.
import type { EntityManager } from '@mikro-orm/postgresql';
import { EventRecord, type EventAction, type EventResourceType } from './event.entity';

export interface EventInput {
  resourceType: EventResourceType;
  action: EventAction;
  resourceId: string;
  organizationId: string;
  projectId?: string | null;
  version?: number | null;
  actorId?: string | null;
  /** Published-state change that API keys may see (publish, unpublish, delete of published, package). */
  published?: boolean;
}

/** Transactions that recorded events: their commit should wake the dispatcher at once instead of at its next poll. */
const withEvents = new WeakSet<EntityManager>();

/**
 * Persists the event into `em`'s unit of work: it is flushed with the change, in the same transaction,
 * so a change never commits without its event and an event never exists for a rolled-back change.
 *
 * Call it once the transaction holds the changed resource's row lock (`SELECT … FOR UPDATE`, or the resource is new):
 * the row's `record_seq`, which orders unnumbered events for the dispatcher, is drawn when the event is inserted, and
 * a flush inserts before it updates, so a resource locked only by the flush's UPDATE could see a change that committed
 * later draw the smaller number.
 */
export function recordEvent(em: EntityManager, input: EventInput): EventRecord {
  const event = em.create(EventRecord, {
    type: `${input.resourceType}.${input.action}`,
    resourceType: input.resourceType,
    resourceId: input.resourceId,
    organizationId: input.organizationId,
    projectId: input.projectId ?? null,
    version: input.version ?? null,
    actorId: input.actorId ?? null,
    published: input.published ?? false,
  });
  em.persist(event);
  withEvents.add(em);
  return event;
}

/**
 * For a transaction whose savepoints ran on forks of their own (`transactional` inside `transactional`): their events
 * were recorded on those forks, and only the outer transaction's commit is reported, so it must count as recording them.
 */
export function carryEvents(em: EntityManager): void {
  withEvents.add(em);
}

/** Calls `onCommit` after every committed transaction that recorded events. */
export function onEventsCommitted(em: EntityManager, onCommit: () => void): void {
  em.getEventManager().registerSubscriber({
    afterTransactionCommit(args) {
      if (withEvents.has(args.em as EntityManager)) onCommit();
    },
  });
}

/**
 * Calls `listener` with the events a transaction of this process recorded, once when they are flushed and again
 * when it commits: local caches then drop what a change affects before its response is sent, without waiting for
 * the broker's round trip (which other replicas wait for).
 */
export function onEventsFlushed(em: EntityManager, listener: (events: EventRecord[]) => void): void {
  const pending = new WeakMap<EntityManager, EventRecord[]>();
  em.getEventManager().registerSubscriber({
    afterFlush(args) {
      const events = args.uow
        .getChangeSets()
        .map((c) => c.entity)
        .filter((e): e is EventRecord => e instanceof EventRecord);
      if (events.length === 0) return;
      listener(events);
      pending.set(args.em as EntityManager, [...(pending.get(args.em as EntityManager) ?? []), ...events]);
    },
    afterTransactionCommit(args) {
      const events = pending.get(args.em as EntityManager);
      if (!events) return;
      pending.delete(args.em as EntityManager);
      listener(events);
    },
  });
}
