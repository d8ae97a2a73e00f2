// Time-boxes calls to a broker that may stall, and stops calling it after one time-out until a probe sees it answer.
import type { ConnectionState } from './connection-state';

/** A call refused at once: the broker did not answer in time lately, and no probe has seen it answer since. */
export class CircuitOpenError extends Error {
  constructor(name: string) {
    super(`${name} is not answering; not waiting on it`);
    this.name = 'CircuitOpenError';
  }
}

/** A call the broker did not answer within the time-out. */
export class BrokerTimeoutError extends Error {
  constructor(name: string, ms: number) {
    super(`${name} did not answer within ${ms} ms`);
    this.name = 'BrokerTimeoutError';
  }
}

export interface CircuitOptions {
  /** For messages: what the broker is (`rate-limit store (Redis)`). */
  name: string;
  /** The longest a call, or a probe, waits for an answer. */
  timeoutMs: number;
  /** How often the probe asks the broker for a sign of life (open or not: a stall is noticed without traffic too). */
  probeIntervalMs: number;
  /** One cheap round trip (PING); rejecting or unanswered within `timeoutMs`, the broker counts as down. */
  probe(): Promise<unknown>;
}

/**
 * Rejects with BrokerTimeoutError when `promise` has not settled within `ms`; never leaves a timer behind. An answer
 * that arrived while this process was busy (a long garbage collection, a burst of CPU work) is not a time-out: after a
 * blocked event loop Node runs due timers before it reads the sockets, so the verdict waits for one turn of I/O
 * (setImmediate runs after it) and the answer, if it is there, wins.
 */
export function withTimeout<T>(promise: Promise<T>, ms: number, name: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => setImmediate(() => reject(new BrokerTimeoutError(name, ms))), ms);
  });
  // The abandoned call may still settle (a thawed broker answers): nobody listens then, and that is fine.
  promise.catch(() => undefined);
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/**
 * A circuit breaker on `state` (shared with the client's own connection events, so one outage logs one line): while
 * closed (`state.up`), calls run within `timeoutMs`; the first that fails or times out opens it, and from then on calls
 * are refused at once (the caller takes its fallback) until the probe sees the broker answer. A stalled broker — a
 * stopped process, a partition, a stuck failover: the connection stays open, nothing answers — then costs one request
 * at most `timeoutMs`, not every request.
 */
export class Circuit {
  private readonly timer: NodeJS.Timeout;
  private probing = false;

  constructor(
    private readonly state: ConnectionState,
    private readonly options: CircuitOptions,
  ) {
    this.timer = setInterval(() => this.probe(), options.probeIntervalMs);
    this.timer.unref();
  }

  /** False while open: calls are refused, `/ready` says `degraded`. */
  get up(): boolean {
    return this.state.up;
  }

  /** Runs `call` within `timeoutMs` (or a shorter `timeoutMs` of its own); rejects at once while open. */
  async run<T>(call: () => Promise<T>, timeoutMs = this.options.timeoutMs): Promise<T> {
    if (!this.state.up) throw new CircuitOpenError(this.options.name);
    try {
      return await withTimeout(call(), timeoutMs, this.options.name);
    } catch (err) {
      this.state.markDown(err);
      throw err;
    }
  }

  close(): void {
    clearInterval(this.timer);
  }

  private probe(): void {
    if (this.probing) return;
    this.probing = true;
    withTimeout(this.options.probe(), this.options.timeoutMs, this.options.name)
      .then(
        () => this.state.markUp(),
        (err: unknown) => this.state.markDown(err),
      )
      .finally(() => (this.probing = false));
  }
}
