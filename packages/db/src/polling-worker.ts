// The one background loop of the platform: passes on a timer and on demand, never two at once, stopped gracefully.
import type { Logger } from '@cp/config';

/** A background loop a host starts and stops. `stop()` lets the current pass finish and resolves once it has. */
export interface BackgroundWorker {
  name: string;
  start(): unknown;
  stop(): Promise<void>;
  kick?(): void;
  /** `commit`: after a commit in this process that wrote events; `announce`: when the broker announces positions. */
  kickOn?: ReadonlyArray<'commit' | 'announce'>;
}

export interface PollingWorkerOptions {
  name: string;
  /** What a pass does, for the log: "<what> failed; will retry", "<what> works again". */
  what: string;
  /** The timer's period. */
  pollMs: number;
  /**
   * With it, the timer is only a backstop: it starts a pass only when none has started for this long (kicks from
   * announcements usually come first).
   */
  quietMs?: number;
  kickOn?: BackgroundWorker['kickOn'];
  logger?: Logger;
}

/**
 * Runs `pass()` on a timer and on `kick()`. Bursts coalesce: at most one pass runs, and one more follows if kicked
 * meanwhile (the pass that is running may have read before the kick's cause). A failed pass is logged once, when the
 * failures start (a database outage would otherwise log every poll until it ends), and the loop goes on.
 */
export abstract class PollingWorker implements BackgroundWorker {
  readonly name: string;
  readonly kickOn: BackgroundWorker['kickOn'];
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private failing = false;
  private startedAt = 0;
  /** Passes started and finished (a pass that left work over counts as finished with the one that ends it). */
  private started = 0;
  private finished = 0;
  private readonly waiters: { run: number; resolve: () => void }[] = [];

  constructor(private readonly polling: PollingWorkerOptions) {
    this.name = polling.name;
    this.kickOn = polling.kickOn;
  }

  /** One pass; resolves `true` when work is left over (a full batch), to run the next pass right after it. */
  protected abstract pass(): Promise<boolean | void>;

  /** True once `stop()` was called: long passes check it between steps. */
  protected get stopping(): boolean {
    return this.stopped;
  }

  /** Starts the timer and a first pass. */
  start(): this {
    const { pollMs, quietMs } = this.polling;
    const due = () => quietMs === undefined || Date.now() - this.startedAt >= quietMs;
    this.timer = setInterval(() => due() && this.kick(), pollMs);
    this.timer.unref();
    this.kick();
    return this;
  }

  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.startedAt = Date.now();
    const run = ++this.started;
    let more = false;
    this.running = this.pass()
      .then(
        (left) => {
          more = left === true;
          if (more) this.again = true;
          if (this.failing) this.polling.logger?.info(`${this.polling.what} works again`);
          this.failing = false;
        },
        (err) => {
          if (!this.failing) this.polling.logger?.warn({ err }, `${this.polling.what} failed; will retry`);
          this.failing = true;
        },
      )
      .finally(() => {
        this.running = undefined;
        if (!more) this.release(run);
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  /**
   * Resolves once the pass that covers every kick made before the call has finished: the running one when nothing was
   * kicked meanwhile, else the one queued after it. Only that pass is awaited, not every later one: under a steady
   * stream of kicks the worker is never idle, and waiting for it to be would hold each caller for several passes.
   */
  settle(): Promise<void> {
    const run = this.again ? this.started + 1 : this.started;
    if (this.finished >= run || this.stopped) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ run, resolve }));
  }

  /** Waits for the running pass, then runs one more: resolves once what was there before the call is handled. */
  async flush(): Promise<void> {
    while (this.running) await this.running;
    await this.pass();
  }

  /** Starts no other pass; resolves once the running one finished. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    while (this.running) await this.running;
    this.release(Infinity);
  }

  private release(run: number): void {
    this.finished = Math.max(this.finished, Math.min(run, this.started));
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      if (this.waiters[i].run <= run) this.waiters.splice(i, 1)[0].resolve();
    }
  }
}
