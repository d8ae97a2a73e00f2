// Tells every replica "events up to position N are committed": PostgreSQL LISTEN/NOTIFY, Redis or NATS, or in-process.
import { EventEmitter } from 'node:events';
import { connectionState, type ConnectionState, type Logger } from '@cp/config';
import { AnnouncingBroker, type AnnouncingOptions } from './announcing-broker';

export type BrokerKind = 'local' | 'postgres' | 'redis' | 'nats';

export interface EventBroker {
  readonly kind: BrokerKind;
  /** False while the broker cannot be reached (the client keeps reconnecting); `/health` and `/ready` report it. */
  readonly connected: boolean;
  /** Rejects when the broker is unreachable: the announcement did not leave this process. */
  publish(position: string): Promise<void>;
  subscribe(listener: (position: string) => void): void;
  close(): Promise<void>;
}

/**
 * A broker of its own shared by replicas over the network (Redis, NATS): it can stall while the database serves, so
 * AnnouncingBroker time-boxes it behind a circuit. PostgreSQL as the broker is the database itself: its liveness probe
 * already answers a stall (requests 503 at once), and a write cannot commit meanwhile to wait on an announcement.
 */
export interface SharedBroker extends EventBroker {
  /** Up or down, logged once per change; the announcing wrapper's circuit marks it too (one outage, one line). */
  readonly state: ConnectionState;
  /** One round trip to the server (PING, `select 1`); rejects at once while disconnected. */
  ping(): Promise<void>;
}

export const CHANNEL = 'cp_events';

/** Reconnect delays: quick at first, then every few seconds, forever (an outage of any length heals by itself). */
export function reconnectDelayMs(attempt: number): number {
  return Math.min(100 * 2 ** Math.min(attempt, 6), 5000);
}

/** After a lost connection: calls `open` with growing delays until it succeeds or the broker was closed. */
function reconnectForever(open: () => Promise<void>, closed: () => boolean, state: ConnectionState): void {
  let attempt = 0;
  const next = () =>
    setTimeout(() => {
      if (closed()) return;
      open().catch((err) => {
        state.markDown(err);
        next();
      });
    }, reconnectDelayMs(attempt++)).unref();
  next();
}

/** One process only (embedded PGlite): notifications never leave it, and need not. */
export class LocalBroker implements EventBroker {
  readonly kind = 'local';
  readonly connected = true;
  private readonly emitter = new EventEmitter().setMaxListeners(0);
  async publish(position: string) {
    this.emitter.emit(CHANNEL, position);
  }
  subscribe(listener: (position: string) => void) {
    this.emitter.on(CHANNEL, listener);
  }
  async close() {
    this.emitter.removeAllListeners();
  }
}

/** LISTEN on a dedicated connection; reconnects with backoff (missed notifications are covered by polling). */
export class PostgresBroker implements EventBroker {
  readonly kind = 'postgres';
  private readonly listeners: ((position: string) => void)[] = [];
  private client: import('pg').Client | undefined;
  private closed = false;
  private readonly state: ConnectionState;

  constructor(
    private readonly url: string,
    logger?: Logger,
  ) {
    this.state = connectionState(logger, 'event broker (PostgreSQL)');
  }

  get connected() {
    return this.client !== undefined;
  }

  async start(): Promise<this> {
    await this.open();
    return this;
  }

  private async open(): Promise<void> {
    const { Client } = await import('pg');
    const client = new Client({ connectionString: this.url, connectionTimeoutMillis: 5000, query_timeout: 5000 });
    client.on('notification', (msg) => msg.payload && this.listeners.forEach((l) => l(msg.payload!)));
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client));
    await client.connect();
    await client.query(`listen ${CHANNEL}`);
    if (this.closed) return void client.end().catch(() => undefined);
    this.client = client;
    this.state.markUp();
  }

  private lost(client: import('pg').Client, err?: Error): void {
    // A connection that never opened is open()'s failure to handle, and an old one's end is not news.
    if (this.client !== client) return;
    this.client = undefined;
    if (this.closed) return;
    this.state.markDown(err ?? 'connection ended');
    reconnectForever(
      () => this.open(),
      () => this.closed,
      this.state,
    );
  }

  async publish(position: string) {
    if (!this.client) throw new Error('The PostgreSQL event listener connection is down.');
    await this.client.query('select pg_notify($1, $2)', [CHANNEL, position]);
  }

  subscribe(listener: (position: string) => void) {
    this.listeners.push(listener);
  }

  async close() {
    this.closed = true;
    await this.client?.end().catch(() => undefined);
  }
}

export class RedisBroker implements SharedBroker {
  readonly kind = 'redis';
  private pub!: import('ioredis').Redis;
  private sub!: import('ioredis').Redis;
  private readonly listeners: ((position: string) => void)[] = [];
  readonly state: ConnectionState;
  private closed = false;

  constructor(
    private readonly url: string,
    logger?: Logger,
  ) {
    this.state = connectionState(logger, 'event broker (Redis)');
  }

  get connected() {
    return this.pub.status === 'ready' && this.sub.status === 'ready';
  }

  async start(): Promise<this> {
    const { Redis } = await import('ioredis');
    // Both clients reconnect forever (ioredis' default); a publish while down fails at once instead of queueing
    // (the announcing wrapper retries it), so no write waits on Redis.
    const retryStrategy = (times: number) => reconnectDelayMs(times);
    this.pub = new Redis(this.url, {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: 5000,
      retryStrategy,
    });
    this.sub = new Redis(this.url, { lazyConnect: true, retryStrategy });
    // Without `error` listeners ioredis prints every failed attempt's stack to stderr ("Unhandled error event").
    for (const client of [this.pub, this.sub]) {
      client.on('error', (err: Error) => this.closed || this.state.markDown(err));
      client.on('close', () => this.closed || this.state.markDown('connection closed'));
      client.on('ready', () => this.connected && this.state.markUp());
    }
    await Promise.all([this.pub.connect(), this.sub.connect()]);
    this.sub.on('message', (_channel: string, message: string) => this.listeners.forEach((l) => l(message)));
    await this.sub.subscribe(CHANNEL);
    return this;
  }

  async publish(position: string) {
    await this.pub.publish(CHANNEL, position);
  }

  async ping() {
    await this.pub.ping();
  }

  subscribe(listener: (position: string) => void) {
    this.listeners.push(listener);
  }

  async close() {
    this.closed = true;
    this.sub.disconnect();
    this.pub.disconnect();
  }
}

export class NatsBroker implements SharedBroker {
  readonly kind = 'nats';
  private connection: import('nats').NatsConnection | undefined;
  private up = false;
  private closing = false;
  private readonly listeners: ((position: string) => void)[] = [];
  readonly state: ConnectionState;
  private readonly codec = import('nats').then((nats) => nats.StringCodec());

  constructor(
    private readonly url: string,
    logger?: Logger,
  ) {
    this.state = connectionState(logger, 'event broker (NATS)');
  }

  get connected() {
    return this.up;
  }

  async start(): Promise<this> {
    await this.open();
    return this;
  }

  private async open(): Promise<void> {
    const { connect, Events } = await import('nats');
    const codec = await this.codec;
    // The client's default gives up after 10 attempts (about 20 s) and closes for good: retry forever instead.
    const connection = await connect({
      servers: this.url.replace(/^nats:\/\//, ''),
      maxReconnectAttempts: -1,
      reconnectTimeWait: 1000,
      pingInterval: 10_000,
    });
    if (this.closing) return void connection.close();
    this.connection = connection;
    this.up = true;
    this.state.markUp();
    const subscription = connection.subscribe(CHANNEL);
    void (async () => {
      for await (const message of subscription) this.listeners.forEach((l) => l(codec.decode(message.data)));
    })();
    // A round trip (PING/PONG) after SUB: the server has registered the subscription before this broker counts as
    // started, as LISTEN and Redis' SUBSCRIBE confirm theirs; an announcement made just after would be missed otherwise.
    await connection.flush();
    void (async () => {
      for await (const status of connection.status()) {
        if (status.type === Events.Disconnect) {
          this.up = false;
          this.state.markDown(`disconnected from ${status.data}`);
        } else if (status.type === Events.Reconnect) {
          this.up = true;
          this.state.markUp();
        }
      }
    })();
    // Closed by anything but close() (a fatal server error): build a new connection.
    void connection.closed().then((err) => {
      this.up = false;
      if (this.closing) return;
      this.state.markDown(err ?? 'connection closed');
      reconnectForever(
        () => this.open(),
        () => this.closing,
        this.state,
      );
    });
  }

  async publish(position: string) {
    // While reconnecting the client would buffer it; failing instead lets the announcing wrapper retry it.
    if (!this.up || !this.connection) throw new Error('NATS is disconnected.');
    this.connection.publish(CHANNEL, (await this.codec).encode(position));
    // NATS publishes without an answer: the PONG after it says the server took the message and passed it on to the
    // subscribers, as Redis' PUBLISH reply and a committed NOTIFY do, before the write waiting for it answers. It
    // rejects when the connection drops meanwhile, or after 5 s of a server that doesn't answer (the other brokers'
    // command and query timeouts), and the announcing wrapper retries.
    let timer: NodeJS.Timeout | undefined;
    const silent = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('NATS did not answer within 5 s.')), 5000).unref();
    });
    await Promise.race([this.connection.flush(), silent]).finally(() => clearTimeout(timer));
  }

  /** PING/PONG: the server answered. While reconnecting the client would hold it: refused at once instead. */
  async ping() {
    if (!this.up || !this.connection) throw new Error('NATS is disconnected.');
    await this.connection.flush();
  }

  subscribe(listener: (position: string) => void) {
    this.listeners.push(listener);
  }

  async close() {
    this.closing = true;
    await this.connection?.drain().catch(() => undefined);
  }
}

/**
 * Redis or NATS when configured (never both: the configuration refuses it); otherwise PostgreSQL, or in-process on
 * the embedded database. A shared broker is wrapped so that announcements reach this process at once, are retried,
 * and never hold a write past `publishWaitMs` (circuit.ts for Redis and NATS: after one time-out, not at all until a
 * probe is answered).
 */
export async function createBroker(options: {
  redisUrl?: string;
  natsUrl?: string;
  databaseUrl?: string;
  logger?: Logger;
  brokers: AnnouncingOptions;
}): Promise<EventBroker> {
  const { logger, brokers } = options;
  if (options.redisUrl)
    return new AnnouncingBroker(await new RedisBroker(options.redisUrl, logger).start(), brokers, logger);
  if (options.natsUrl)
    return new AnnouncingBroker(await new NatsBroker(options.natsUrl, logger).start(), brokers, logger);
  if (options.databaseUrl)
    return new AnnouncingBroker(await new PostgresBroker(options.databaseUrl, logger).start(), brokers, logger);
  return new LocalBroker();
}
