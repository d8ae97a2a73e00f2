// One reader per process follows the event table and fans new events out to this process's live subscribers.
import type { Logger } from '@cp/config';
import type { MikroORM } from '@mikro-orm/postgresql';
import { PollingWorker } from '../polling-worker';
import type { EventBroker } from './broker';
import type { NumberedRow } from './dispatcher';
import { EventRecord } from './event.entity';
import { currentPosition, matches, type EventFilter } from './event-query';

export interface LiveSubscriber {
  filter: EventFilter;
  /** Returns false when the subscriber can't keep up: it is then dropped and resumes by cursor. */
  push(event: EventRecord): boolean;
  /** Called when the feed drops the subscriber. */
  dropped(): void;
}

const PAGE = 500;
/**
 * Backstop for lost broker messages: a feed that has not read for this long reads anyway. With the dispatchers'
 * 500 ms timer, every replica applies every committed event within about 2 s, announced or not.
 */
const QUIET_MS = 1000;
const CHECK_MS = 250;

export class EventFeed extends PollingWorker {
  private last = 0n;
  private readonly subscribers = new Set<LiveSubscriber>();
  private readonly watchers = new Set<(event: EventRecord) => void>();

  constructor(
    private readonly orm: MikroORM,
    private readonly broker: EventBroker,
    private readonly logger?: Logger,
  ) {
    super({ name: 'event-feed', what: 'reading new events', pollMs: CHECK_MS, quietMs: QUIET_MS, logger });
  }

  /** Starts from the current position: reads on every announcement, and when quiet. */
  async open(): Promise<this> {
    this.last = await currentPosition(this.orm.em.fork());
    // An announcement at or below the position adds nothing (every event up to it was delivered). Checked once the
    // announcing code has run to its end: this process's dispatcher hands its batch over right after announcing it.
    this.broker.subscribe((position) =>
      queueMicrotask(() => (!/^\d+$/.test(position) || BigInt(position) > this.last) && this.kick()),
    );
    return this.start();
  }

  /**
   * Every new event of every project and organization, in position order, before live subscribers get it: for the
   * process's own bookkeeping (dropping cached credentials and cached reads), never for clients.
   */
  onEvent(watcher: (event: EventRecord) => void): () => void {
    this.watchers.add(watcher);
    return () => this.watchers.delete(watcher);
  }

  /** The highest position this replica has read and delivered: every event at or below it reached the watchers. */
  get position(): bigint {
    return this.last;
  }

  /** Called with every announced position, before the events behind it are read (marks this replica as behind). */
  onAnnounced(listener: (position: bigint) => void): void {
    this.broker.subscribe((position) => /^\d+$/.test(position) && listener(BigInt(position)));
  }

  subscribe(subscriber: LiveSubscriber): () => void {
    this.subscribers.add(subscriber);
    return () => this.subscribers.delete(subscriber);
  }

  protected async pass(): Promise<void> {
    const em = this.orm.em.fork();
    for (;;) {
      const events = await em.find(
        EventRecord,
        { position: { $gt: String(this.last) } },
        { orderBy: { position: 'asc' }, limit: PAGE },
      );
      // A hand-off may have delivered some of them while this page was being read.
      for (const event of events) if (BigInt(event.position!) > this.last) this.deliver(event);
      if (events.length < PAGE) return;
      em.clear();
    }
  }

  /**
   * Delivers a batch this process's dispatcher just numbered and committed, without reading it back, when it starts
   * right after this feed's position: positions are drawn under the dispatchers' lock, so nothing of another process
   * lies inside the batch. Otherwise (another process's events came first, or a burnt position) it returns false and
   * the read that the batch's announcement queued (it runs after this call) reads them from the database as usual.
   */
  handOff(rows: readonly NumberedRow[]): boolean {
    if (this.stopping || rows.length === 0) return false;
    const sorted = [...rows].sort((a, b) => (BigInt(a.position) < BigInt(b.position) ? -1 : 1));
    if (BigInt(sorted[0].position) !== this.last + 1n) return false;
    const em = this.orm.em.fork();
    for (const row of sorted) this.deliver(em.map(EventRecord, row));
    return true;
  }

  /**
   * Hands one event, next in position order, to the watchers and then to every matching subscriber, synchronously:
   * subscribers of one event are served in one pass (the fan-out shares one serialisation among them).
   */
  deliver(event: EventRecord): void {
    // Watchers first, then the position moves: a reader that sees position N knows N's effects are applied.
    for (const watcher of this.watchers) {
      try {
        watcher(event);
      } catch (err) {
        this.logger?.warn({ err }, 'an event watcher failed');
      }
    }
    this.last = BigInt(event.position!);
    for (const subscriber of this.subscribers) {
      if (matches(event, subscriber.filter) && !subscriber.push(event)) {
        this.subscribers.delete(subscriber);
        subscriber.dropped();
      }
    }
  }
}
