// The helpers every write uses to record its event in the transaction it is committing.
import type { EntityManager, EventSubscriber } from '@mikro-orm/postgresql';
import { sql } from '../transaction-sql';
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
  const event = em.create(EventRecord, fieldsOf(input));
  em.persist(event);
  withEvents.add(em);
  return event;
}

/**
 * A subscriber (MikroORM's) that also hears of the events a transaction inserted as rows (`insertEvents`), as its
 * flush hooks hear of the events a flush wrote: they commit with the transaction, or not at all. The records it gets
 * have no `occurredAt` or `position`: the database sets both.
 */
export interface InsertedEventsSubscriber extends EventSubscriber {
  eventsInserted(tx: EntityManager, events: readonly EventRecord[]): void | Promise<void>;
}

const INSERT_EVENTS = `insert into "event" ("id", "type", "resource_type", "resource_id", "organization_id", "project_id",
    "version", "published", "actor_id")
  select r."id", r."type", r."resource_type", r."resource_id", r."organization_id", r."project_id", r."version",
      r."published", r."actor_id"
    from jsonb_array_elements(?::jsonb) with ordinality as e(row, n), jsonb_populate_record(null::"event", e.row) as r
    order by e.n`;

/**
 * The events of changes written as plain rows (`RowRecords`), inserted by one statement in `tx`'s transaction, in the
 * order given (each draws its `record_seq` in that order): a unit of work would hold, compare and flush an entity per
 * event for the same insert. What a flush of recorded events sets off happens too: the transaction's commit wakes the
 * dispatcher, and every `InsertedEventsSubscriber` hears of them. Same rule as `recordEvent`: call it once `tx` holds
 * the changed resources' row locks.
 */
export async function insertEvents(tx: EntityManager, inputs: readonly EventInput[]): Promise<void> {
  if (inputs.length === 0) return;
  if (!tx.getTransactionContext()) throw new Error('Events are inserted in the transaction of their change.');
  // Events this transaction recorded earlier for its flush (a release's content types, before its entries) are taken
  // out of the unit of work and go first in this insert: each event's `record_seq`, and so its position, follows the
  // order the changes were made in, and all of them are heard at commit only.
  const unitOfWork = tx.getUnitOfWork();
  const held = [...unitOfWork.getPersistStack()].filter(
    (entity): entity is EventRecord => entity instanceof EventRecord,
  );
  for (const event of held) unitOfWork.unsetIdentity(event);
  const events = [...held, ...inputs.map((input) => Object.assign(new EventRecord(), fieldsOf(input)))];
  const rows = events.map((e) => ({
    id: e.id,
    type: e.type,
    resource_type: e.resourceType,
    resource_id: e.resourceId,
    organization_id: e.organizationId,
    project_id: e.projectId,
    version: e.version,
    published: e.published,
    actor_id: e.actorId,
  }));
  await sql(tx, INSERT_EVENTS, [JSON.stringify(rows)], true);
  withEvents.add(tx);
  for (const subscriber of tx.getEventManager().getSubscribers())
    if ('eventsInserted' in subscriber) await (subscriber as InsertedEventsSubscriber).eventsInserted(tx, events);
}

/** An event's columns from what the change says of itself. */
function fieldsOf(input: EventInput) {
  return {
    type: `${input.resourceType}.${input.action}`,
    resourceType: input.resourceType,
    resourceId: input.resourceId,
    organizationId: input.organizationId,
    projectId: input.projectId ?? null,
    version: input.version ?? null,
    actorId: input.actorId ?? null,
    published: input.published ?? false,
  };
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
 * Calls `listener` with the events a transaction of this process recorded, once it commits (flushed ones also when they
 * are flushed): local caches then drop what a change affects before its response is sent, without waiting for the
 * broker's round trip (which other replicas wait for). Events inserted as rows are heard at commit only, so a batch
 * its caller refuses and rolls back (a release with a refused item) tells no cache anything. Those inserted inside a
 * savepoint (a bulk action's item, a scheduled change) are not heard here: MikroORM reports only the outer commit, on
 * another fork. The feed delivers them instead, before the write answers (the dispatcher hands its batch to this
 * process's feed, and the write awaits that run); these caches (project existence, principals) drop nothing on
 * content events anyway.
 */
export function onEventsFlushed(em: EntityManager, listener: (events: readonly EventRecord[]) => void): void {
  const pending = new WeakMap<EntityManager, EventRecord[]>();
  const committing = (tx: EntityManager, events: readonly EventRecord[]) => {
    pending.set(tx, [...(pending.get(tx) ?? []), ...events]);
  };
  const subscriber: InsertedEventsSubscriber = {
    afterFlush(args) {
      const events = args.uow
        .getChangeSets()
        .map((c) => c.entity)
        .filter((e): e is EventRecord => e instanceof EventRecord);
      if (events.length === 0) return;
      listener(events);
      committing(args.em as EntityManager, events);
    },
    eventsInserted: committing,
    afterTransactionCommit(args) {
      const events = pending.get(args.em as EntityManager);
      if (!events) return;
      pending.delete(args.em as EntityManager);
      listener(events);
    },
  };
  em.getEventManager().registerSubscriber(subscriber);
}
