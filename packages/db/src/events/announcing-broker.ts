// Wraps a shared broker: this process hears its own announcements at once, and a failed announcement is retried.
import type { Logger } from '@cp/config';
import type { EventBroker } from './broker';

/** How long a write's answer may wait for its announcement to leave; a slow or hung broker is not the write's problem. */
const PUBLISH_WAIT_MS = 250;
const RETRY_MS = 1000;

/**
 * A position is announced to this process's own subscribers before anything else (its read cache and streams see
 * its own writes even while the broker is down), then published. A publish that fails is not lost: the highest
 * position not yet published is retried every second until the broker takes it (positions are cumulative, so one
 * message covers every earlier one). Other replicas also poll the outbox (EventFeed), so nothing depends on it alone.
 */
export class AnnouncingBroker implements EventBroker {
  private readonly listeners: ((position: string) => void)[] = [];
  /** The highest position this process's subscribers were told: the broker's echo of it (or of less) adds nothing. */
  private heard = -1n;
  /** The highest position whose publish has not succeeded yet. */
  private pending: bigint | undefined;
  /** The highest position the shared broker has taken. */
  private carried = -1n;
  private publishing: Promise<boolean> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly inner: EventBroker,
    private readonly logger?: Logger,
  ) {
    inner.subscribe((position) => this.deliver(position));
  }

  get kind() {
    return this.inner.kind;
  }

  get connected() {
    return this.inner.connected;
  }

  /**
   * Resolves once the shared broker has taken this position (or a later one), once an attempt failed (it is retried
   * in the background), or after PUBLISH_WAIT_MS: the caller is a write waiting to answer. Never rejects.
   */
  async publish(position: string): Promise<void> {
    this.deliver(position);
    const value = BigInt(position);
    if (this.pending === undefined || value > this.pending) this.pending = value;
    await Promise.race([this.carry(value), new Promise<void>((r) => setTimeout(r, PUBLISH_WAIT_MS).unref())]);
  }

  subscribe(listener: (position: string) => void) {
    this.listeners.push(listener);
  }

  /** Positions only grow: a subscriber told N has had every event up to N read for it, so M ≤ N is dropped. */
  private deliver(position: string): void {
    if (/^\d+$/.test(position)) {
      const value = BigInt(position);
      if (value <= this.heard) return;
      this.heard = value;
    }
    this.listeners.forEach((l) => l(position));
  }

  async close() {
    this.closed = true;
    clearTimeout(this.timer);
    await this.inner.close();
  }

  /**
   * Waits until `value` is carried. An attempt already in flight may carry an older position: the write that waits
   * for a newer one must not answer when that attempt ends, but when the attempt that carries its own position does.
   */
  private async carry(value: bigint): Promise<void> {
    while (this.carried < value && !this.closed) {
      if (!(await this.flush())) return;
    }
  }

  /** Publishes the pending position; one attempt at a time (a newer position waits for it, then goes). */
  private flush(): Promise<boolean> {
    if (this.publishing) return this.publishing;
    const position = this.pending;
    if (position === undefined || this.closed) return Promise.resolve(false);
    this.publishing = this.inner
      .publish(String(position))
      .then(
        () => {
          if (position > this.carried) this.carried = position;
          if (this.pending === position) this.pending = undefined;
          return true;
        },
        (err) => {
          this.logger?.debug({ err, position: String(position) }, 'announcing events failed; will retry');
          this.schedule();
          return false;
        },
      )
      .finally(() => {
        this.publishing = undefined;
        // A newer position arrived during this attempt: it goes now, unless this one just failed.
        if (this.pending !== undefined && this.pending !== position && !this.timer) void this.flush();
      });
    return this.publishing;
  }

  private schedule(): void {
    if (this.timer || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, RETRY_MS);
    this.timer.unref();
  }
}
