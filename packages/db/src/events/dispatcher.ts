// Gives committed events their commit-ordered positions and announces them (transactional outbox).
import type { Logger } from '@cp/config';
import type { MikroORM } from '@mikro-orm/postgresql';
import { PollingWorker } from '../polling-worker';
import type { EventBroker } from './broker';

// Any constant: it makes the dispatchers of all replicas take turns.
const DISPATCH_LOCK = 7_240_114;
const BATCH = 1000;

/** One numbered event as the database returned it (column names, as `em.map` takes them). */
export type NumberedRow = Record<string, unknown> & { position: string };

/**
 * Events get positions only after their transaction committed, by one dispatcher at a time, in one transaction per
 * batch: a reader that saw position N can never later find an event below N. A dispatcher runs after each commit
 * in this process (kick) and on a timer, which also catches writes of other processes and of a process that died
 * between its commit and its dispatch.
 */
export class EventDispatcher extends PollingWorker {
  private readonly numbered: ((rows: NumberedRow[]) => void)[] = [];
  /** The highest position this dispatcher has announced. */
  private announcedMax = -1n;

  constructor(
    private readonly orm: MikroORM,
    private readonly broker: EventBroker,
    private readonly logger?: Logger,
    pollMs = 500,
  ) {
    super({ name: 'event-dispatcher', what: 'event dispatch', pollMs, kickOn: ['commit'], logger });
  }

  // `flush()` (PollingWorker) resolves once every event committed before the call has a position. `settle()` resolves
  // once the assignment run that a commit of this process kicked (and any it queued) has finished, i.e. its events
  // have positions, this process has heard of them, and the broker was given a bounded moment to carry them to the
  // other replicas (see AnnouncingBroker): cheaper than `flush` (no transaction).

  /**
   * Called with every batch this dispatcher numbered, after its transaction committed and its announcement left: the
   * local feed delivers them without reading them back when they follow its position exactly (EventFeed.handOff).
   */
  onNumbered(listener: (rows: NumberedRow[]) => void): void {
    this.numbered.push(listener);
  }

  /** Numbers one batch; true when the batch was full (more are waiting). */
  protected async pass(): Promise<boolean> {
    const { rows, max } = await this.number();
    const full = rows.length === BATCH;
    // A pass that numbered nothing still announces a position it has not announced yet: another replica's dispatcher
    // may have numbered this process's commit a moment ago and not have announced it yet, and the write waiting for
    // this pass must not answer before some announcement covers its events.
    const fresh = max !== undefined && BigInt(max) > this.announcedMax;
    if (fresh) this.announcedMax = BigInt(max);
    // Announced first: the other replicas start reading while this one fans out the batch it hands over (a fan-out to
    // thousands of subscribers would otherwise hold the announcement back by as long).
    const announced = fresh ? this.broker.publish(max) : undefined;
    if (rows.length > 0) {
      for (const listener of this.numbered) {
        try {
          listener(rows);
        } catch (err) {
          this.logger?.warn({ err }, 'handing numbered events over failed');
        }
      }
    }
    await announced;
    return full;
  }

  /**
   * Takes the lock, numbers the batch and reads the highest position in one round trip: three statements in one
   * simple query run as one implicit transaction (the lock is held until the numbered rows are committed, and an error
   * rolls them all back), and in READ COMMITTED the update's snapshot is taken after the lock was granted, so it sees
   * every earlier dispatcher's positions. Without parameters: the simple query protocol is the one that takes several
   * statements.
   *
   * Unnumbered events are taken in the order of `record_seq`, which the database draws when the event row is inserted,
   * after the writing transaction took the changed resource's row lock (recordEvent): the next change of a resource
   * always draws a larger number, so each resource's events get positions in the order its changes committed. A clock
   * cannot order them: replicas' clocks differ, and even one clock has ties and steps back.
   */
  private async number(): Promise<{ rows: NumberedRow[]; max: string | undefined }> {
    const results = await this.orm.em
      .getConnection()
      .getKnex()
      .raw(
        `select pg_advisory_xact_lock(${DISPATCH_LOCK});
       update "event" set "position" = s.pos
         from (select id, nextval('event_position_seq') as pos
                 from (select id from "event" where "position" is null order by "record_seq" limit ${BATCH}) ordered) s
        where "event"."id" = s.id
        returning "event".*;
       select max("position")::text as max from "event"`,
      );
    const [, numbered, highest] = results as { rows: Record<string, unknown>[] }[];
    return { rows: numbered!.rows as NumberedRow[], max: (highest!.rows[0]?.max as string | null) ?? undefined };
  }
}
