// Gives committed events their commit-ordered positions and announces them (transactional outbox, issue 7).
import type { Logger } from '@cp/config';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { EventBroker } from './broker';

// Any constant: it makes the dispatchers of all replicas take turns.
const DISPATCH_LOCK = 7_240_114;
const BATCH = 1000;

/**
 * Events get positions only after their transaction committed, by one dispatcher at a time, in one transaction per
 * batch: a reader that saw position N can never later find an event below N. A dispatcher runs after each commit
 * in this process (kick) and on a timer, which also catches writes of other processes and of a process that died
 * between its commit and its dispatch.
 */
export class EventDispatcher {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  /** Assignment runs started and finished so far: `settle` waits for one run number, not for a quiet moment. */
  private started = 0;
  private finished = 0;
  private readonly waiters: { run: number; resolve: () => void }[] = [];
  /** Logged once when dispatching starts failing (a database outage), not twice a second until it ends. */
  private failing = false;

  constructor(
    private readonly orm: MikroORM,
    private readonly broker: EventBroker,
    private readonly logger?: Logger,
    private readonly pollMs = 500,
  ) {}

  start(): this {
    this.timer = setInterval(() => this.kick(), this.pollMs);
    this.timer.unref();
    this.kick();
    return this;
  }

  /** Coalesces bursts: at most one assignment runs, and one more follows if kicked meanwhile. */
  kick(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    const run = ++this.started;
    this.running = this.assign()
      .then(
        () => {
          if (this.failing) this.logger?.info('event dispatch works again');
          this.failing = false;
        },
        (err) => {
          if (!this.failing) this.logger?.warn({ err }, 'event dispatch failed; will retry');
          this.failing = true;
        },
      )
      .finally(() => {
        this.running = undefined;
        this.finished = run;
        this.release();
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  /** Resolves once every event committed before the call has a position. */
  async flush(): Promise<void> {
    while (this.running) await this.running;
    await this.assign();
  }

  /**
   * Resolves once the assignment run that covers every commit of this process made before the call has finished,
   * i.e. their events have positions, this process has heard of them, and the broker was given a bounded moment to
   * carry them to the other replicas (see AnnouncingBroker). Cheaper than `flush` (no extra transaction).
   * A commit kicks before its writer calls this: it either started the running run (which began after the commit, so
   * sees it) or queued the next one (`again`). Only that run is awaited, not every later one: under a steady stream
   * of writes the dispatcher is never idle, and waiting for it to be would hold each answer for several runs.
   */
  settle(): Promise<void> {
    const run = this.again ? this.started + 1 : this.started;
    if (this.finished >= run) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ run, resolve }));
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    while (this.running) await this.running;
  }

  private release(): void {
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      if (this.waiters[i].run <= this.finished) this.waiters.splice(i, 1)[0].resolve();
    }
  }

  private async assign(): Promise<void> {
    const em = this.orm.em.fork();
    const last = await em.transactional(async (tx) => {
      const conn = tx.getConnection();
      const ctx = tx.getTransactionContext();
      await conn.execute('select pg_advisory_xact_lock(?)', [DISPATCH_LOCK], 'all', ctx);
      const rows = await conn.execute<{ position: string }[]>(
        `update "event" set "position" = s.pos
           from (select id, nextval('event_position_seq') as pos
                   from (select id from "event" where "position" is null order by "occurred_at", "id" limit ${BATCH}) ordered) s
          where "event"."id" = s.id
          returning "event"."position"`,
        [],
        'all',
        ctx,
      );
      // A full batch means more are waiting: go again right after this one.
      if (rows.length === BATCH) this.again = true;
      return rows.reduce<string | undefined>((max, r) => (max === undefined || BigInt(r.position) > BigInt(max) ? String(r.position) : max), undefined);
    });
    if (last !== undefined) await this.broker.publish(last);
  }
}
