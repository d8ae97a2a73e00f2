// One reader per process follows the event table and fans new events out to this process's live subscribers.
import type { Logger } from '@cp/config';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { EventBroker } from './broker';
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

export class EventFeed {
  private last = 0n;
  private readonly subscribers = new Set<LiveSubscriber>();
  private readonly watchers = new Set<(event: EventRecord) => void>();
  private pulling: Promise<void> | undefined;
  private again = false;
  private lastReadAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private failing = false;

  constructor(
    private readonly orm: MikroORM,
    private readonly broker: EventBroker,
    private readonly logger?: Logger,
  ) {}

  async start(): Promise<this> {
    this.last = await currentPosition(this.orm.em.fork());
    this.broker.subscribe(() => this.pull());
    this.timer = setInterval(() => Date.now() - this.lastReadAt >= QUIET_MS && this.pull(), CHECK_MS);
    this.timer.unref();
    return this;
  }

  /** Stops the quiet-time polling (shutdown); announcements still trigger reads until the broker closes. */
  stop(): void {
    clearInterval(this.timer);
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

  private pull(): void {
    if (this.pulling) {
      this.again = true;
      return;
    }
    this.lastReadAt = Date.now();
    this.pulling = this.read()
      .then(
        () => {
          if (this.failing) this.logger?.info('reading new events works again');
          this.failing = false;
        },
        (err) => {
          if (!this.failing) this.logger?.warn({ err }, 'reading new events failed; will retry');
          this.failing = true;
        },
      )
      .finally(() => {
        this.pulling = undefined;
        if (this.again) {
          this.again = false;
          this.pull();
        }
      });
  }

  private async read(): Promise<void> {
    const em = this.orm.em.fork();
    for (;;) {
      const events = await em.find(EventRecord, { position: { $gt: String(this.last) } }, { orderBy: { position: 'asc' }, limit: PAGE });
      for (const event of events) this.deliver(event);
      if (events.length < PAGE) return;
      em.clear();
    }
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
