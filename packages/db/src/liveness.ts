// Tells within seconds whether PostgreSQL answers at all, on a connection of its own (never the pool's), so that a frozen
// server or a silent network is refused at once instead of holding requests on connections that will never answer.
import type { Logger } from '@cp/config';
import pg from 'pg';
import { destroySocket } from './pg-socket';

export interface LivenessOptions {
  url: string;
  /** How long after one probe the next starts. */
  intervalMs: number;
  /** A probe (connecting included) without an answer by then finds the database not answering. */
  timeoutMs: number;
  logger?: Logger;
}

type Outcome = 'answered' | 'timeout' | 'broken';

/**
 * The probe runs `select 1` alone on its connection, so a saturated pool or long legitimate statements never delay it:
 * only a server that cannot answer a trivial statement within `timeoutMs` counts as down. A freeze is noticed within
 * `intervalMs + timeoutMs` (3 s by default).
 */
export class DatabaseLiveness {
  private answering = true;
  private connection?: { client: pg.Client; ready: Promise<unknown> };
  private running?: Promise<boolean>;
  private timer?: NodeJS.Timeout;
  private stopped = false;
  private downListeners = new Set<() => void>();

  constructor(private readonly options: LivenessOptions) {}

  /** False from a failed probe until one succeeds again. */
  get up(): boolean {
    return this.answering;
  }

  start(): void {
    this.stopped = false;
    this.schedule();
  }

  /** Calls `listener` each time the database turns from answering to not answering; returns its removal. */
  onDown(listener: () => void): () => void {
    this.downListeners.add(listener);
    return () => this.downListeners.delete(listener);
  }

  /** Probes now, or joins the probe under way: whether the database answered in time. */
  check(): Promise<boolean> {
    this.running ??= this.probe().finally(() => (this.running = undefined));
    return this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    const client = this.connection?.client;
    this.connection = undefined;
    if (!client) return;
    // A goodbye first; a frozen server never answers it, so the socket closes after the probe's timeout regardless.
    const closing = setTimeout(() => destroySocket(client), this.options.timeoutMs);
    await client.end().catch(() => undefined);
    clearTimeout(closing);
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.check().finally(() => this.schedule()), this.options.intervalMs);
    this.timer.unref();
  }

  private async probe(): Promise<boolean> {
    let outcome = await this.attempt();
    // A probe connection that broke (a restart, a DBA's pg_terminate_backend) is not an outage yet: one more try on a new
    // connection (refused at once when the server is really gone). A timeout is not retried: that is the freeze.
    if (outcome === 'broken' && !this.stopped) outcome = await this.attempt();
    if (outcome === 'answered') this.markUp();
    else if (!this.stopped) this.markDown(outcome);
    return outcome === 'answered';
  }

  private async attempt(): Promise<Outcome> {
    const connection = (this.connection ??= this.connect());
    let timer: NodeJS.Timeout | undefined;
    // Decided after the event loop's next I/O poll (setImmediate): when this process itself was stalled (a loaded
    // machine), the timer and the answer come due together, and timers run before I/O; the answer must win then, or a
    // busy process would take the database for down and drop every pooled connection.
    const timeout = new Promise<Outcome>(
      (resolve) => (timer = setTimeout(() => setImmediate(() => resolve('timeout')), this.options.timeoutMs)),
    );
    const answer = connection.ready
      .then(() => connection.client.query('select 1'))
      .then((): Outcome => 'answered')
      .catch((): Outcome => 'broken');
    const outcome = await Promise.race([answer, timeout]);
    clearTimeout(timer);
    if (outcome !== 'answered') {
      // Never reused: a statement stuck on it would delay the next probe's answer.
      if (this.connection === connection) this.connection = undefined;
      destroySocket(connection.client);
    }
    return outcome;
  }

  private connect() {
    const client = new pg.Client({
      connectionString: this.options.url,
      keepAlive: true,
      application_name: 'cp-liveness',
    });
    // A broken connection is found by the next probe; without a listener pg's error event would end the process.
    client.on('error', () => undefined);
    return { client, ready: client.connect() };
  }

  private markUp(): void {
    if (this.answering) return;
    this.answering = true;
    this.options.logger?.info('PostgreSQL answers its liveness probe again');
  }

  private markDown(outcome: Outcome): void {
    if (!this.answering) return;
    this.answering = false;
    this.options.logger?.warn(
      { reason: outcome === 'timeout' ? `no answer within ${this.options.timeoutMs} ms` : 'connection failed' },
      'PostgreSQL does not answer its liveness probe; requests that need it answer 503 until it does',
    );
    for (const listener of this.downListeners) listener();
  }
}
