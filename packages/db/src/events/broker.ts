// Tells every replica "events up to position N are committed": PostgreSQL LISTEN/NOTIFY, Redis or NATS, or in-process.
import { EventEmitter } from 'node:events';
import type { Logger } from '@cp/config';

export interface EventBroker {
  publish(position: string): Promise<void>;
  subscribe(listener: (position: string) => void): void;
  close(): Promise<void>;
}

const CHANNEL = 'cp_events';

/** One process only (embedded PGlite): notifications never leave it, and need not. */
export class LocalBroker implements EventBroker {
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
  private readonly listeners: ((position: string) => void)[] = [];
  private client: import('pg').Client | undefined;
  private closed = false;

  constructor(
    private readonly url: string,
    private readonly logger?: Logger,
  ) {}

  async start(): Promise<this> {
    const { Client } = await import('pg');
    const client = new Client({ connectionString: this.url });
    client.on('notification', (msg) => msg.payload && this.listeners.forEach((l) => l(msg.payload!)));
    client.on('error', (err) => {
      this.logger?.warn({ err }, 'event listener connection lost; reconnecting');
      this.client = undefined;
      if (!this.closed) setTimeout(() => void this.start().catch(() => undefined), 1000).unref();
    });
    await client.connect();
    await client.query(`listen ${CHANNEL}`);
    this.client = client;
    return this;
  }

  async publish(position: string) {
    await this.client?.query('select pg_notify($1, $2)', [CHANNEL, position]);
  }

  subscribe(listener: (position: string) => void) {
    this.listeners.push(listener);
  }

  async close() {
    this.closed = true;
    await this.client?.end().catch(() => undefined);
  }
}

export class RedisBroker implements EventBroker {
  private pub!: import('ioredis').Redis;
  private sub!: import('ioredis').Redis;
  private readonly listeners: ((position: string) => void)[] = [];

  constructor(private readonly url: string) {}

  async start(): Promise<this> {
    const { Redis } = await import('ioredis');
    this.pub = new Redis(this.url, { lazyConnect: true, maxRetriesPerRequest: 2 });
    this.sub = new Redis(this.url, { lazyConnect: true });
    await Promise.all([this.pub.connect(), this.sub.connect()]);
    this.sub.on('message', (_channel: string, message: string) => this.listeners.forEach((l) => l(message)));
    await this.sub.subscribe(CHANNEL);
    return this;
  }

  async publish(position: string) {
    await this.pub.publish(CHANNEL, position);
  }

  subscribe(listener: (position: string) => void) {
    this.listeners.push(listener);
  }

  async close() {
    this.sub.disconnect();
    this.pub.disconnect();
  }
}

export class NatsBroker implements EventBroker {
  private connection!: import('nats').NatsConnection;
  private readonly listeners: ((position: string) => void)[] = [];

  constructor(private readonly url: string) {}

  async start(): Promise<this> {
    const { connect, StringCodec } = await import('nats');
    const codec = StringCodec();
    this.connection = await connect({ servers: this.url.replace(/^nats:\/\//, '') });
    const subscription = this.connection.subscribe(CHANNEL);
    void (async () => {
      for await (const message of subscription) this.listeners.forEach((l) => l(codec.decode(message.data)));
    })();
    this.publishRaw = (position) => this.connection.publish(CHANNEL, codec.encode(position));
    return this;
  }

  private publishRaw: (position: string) => void = () => undefined;

  async publish(position: string) {
    this.publishRaw(position);
  }

  subscribe(listener: (position: string) => void) {
    this.listeners.push(listener);
  }

  async close() {
    await this.connection.drain();
  }
}

/** Redis, then NATS when configured; otherwise PostgreSQL, or in-process on the embedded database. */
export async function createBroker(options: { redisUrl?: string; natsUrl?: string; databaseUrl?: string; logger?: Logger }): Promise<EventBroker> {
  if (options.redisUrl) return new RedisBroker(options.redisUrl).start();
  if (options.natsUrl) return new NatsBroker(options.natsUrl).start();
  if (options.databaseUrl) return new PostgresBroker(options.databaseUrl, options.logger).start();
  return new LocalBroker();
}
