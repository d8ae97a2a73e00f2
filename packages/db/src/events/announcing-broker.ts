// Wraps a shared broker: this process hears its own announcements at once, and a failed announcement is retried.
import { Circuit, type Config, type Logger } from '@cp/config';
import type { EventBroker, SharedBroker } from './broker';

/**
 * `publishWaitMs`: how long a write's answer may wait for its announcement to leave (a slow or hung broker is not the
 * write's problem); `timeoutMs` and `probeIntervalMs`: the probe's (circuit.ts).
 */
export type AnnouncingOptions = Config['brokers'];
const RETRY_MS = 1000;

/**
 * A position is announced to this process's own subscribers before anything else (its read cache and streams see
 * its own writes even while the broker is down), then published. A publish that fails is not lost: the highest
 * position not yet published is retried every second until the broker takes it (positions are cumulative, so one
 * message covers every earlier one). Other replicas also poll the outbox (EventFeed), so nothing depends on it alone.
 * On Redis and NATS, a publish unanswered within `publishWaitMs` opens the broker's circuit: while it is open, writes
 * do not wait for their announcement at all (the retry and the other replicas' outbox poll carry it), `connected` is
 * false (`/ready` says `degraded`), and a PING every `probeIntervalMs` closes it once the broker answers.
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
  /** Redis and NATS (SharedBroker); none for PostgreSQL as the broker. */
  private readonly circuit: Circuit | undefined;

  constructor(
    private readonly inner: EventBroker | SharedBroker,
    private readonly options: AnnouncingOptions,
    private readonly logger?: Logger,
  ) {
    inner.subscribe((position) => this.deliver(position));
    if ('ping' in inner)
      this.circuit = new Circuit(inner.state, {
        name: `event broker (${inner.kind})`,
        timeoutMs: options.timeoutMs,
        probeIntervalMs: options.probeIntervalMs,
        probe: () => inner.ping(),
      });
  }

  get kind() {
    return this.inner.kind;
  }

  get connected() {
    return this.inner.connected && (this.circuit?.up ?? true);
  }

  /**
   * Resolves once the shared broker has taken this position (or a later one), once an attempt failed (it is retried
   * in the background), or after `publishWaitMs`: the caller is a write waiting to answer. At once while the circuit
   * is open. Never rejects.
   */
  async publish(position: string): Promise<void> {
    this.deliver(position);
    const value = BigInt(position);
    if (this.pending === undefined || value > this.pending) this.pending = value;
    if (this.circuit && !this.circuit.up) return this.schedule();
    const waited = new Promise<void>((r) => setTimeout(r, this.options.publishWaitMs).unref());
    await Promise.race([this.carry(value), waited]);
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
    this.circuit?.close();
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
    // Bounded by the write's wait: a broker that takes longer is counted as stalled, and writes stop waiting for it.
    const publish = () => this.inner.publish(String(position));
    this.publishing = (this.circuit ? this.circuit.run(publish, this.options.publishWaitMs) : publish())
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
