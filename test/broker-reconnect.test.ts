// Real brokers killed and restarted under two in-process event brokers (as two replicas hold them): they heal alone.
import { loadConfig } from '@cp/config';
import { createBroker, type EventBroker } from '@cp/db';
import pino from 'pino';
import { Writable } from 'node:stream';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { startNats, startRedis, type FaultServer } from './support/fault-servers';
import { waitFor } from './support/wait';

/** The default time-outs (BROKER_* unset). */
const brokers = loadConfig({}).brokers;

/** A pino logger whose JSON lines the test reads. */
function capturedLogger() {
  const lines: { msg: string; connection?: string }[] = [];
  const stream = new Writable({
    write: (chunk, _enc, done) => (
      lines.push(
        ...chunk
          .toString()
          .trim()
          .split('\n')
          .map((l: string) => JSON.parse(l)),
      ),
      done()
    ),
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

describe('event brokers across broker outages (real redis-server and nats-server)', () => {
  const opened: EventBroker[] = [];
  const servers: FaultServer[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((b) => b.close()));
    await Promise.all(servers.splice(0).map((s) => s.destroy()));
  });
  afterAll(() => vi.restoreAllMocks());

  it('every broker hears an announcement made the moment it has started (its subscription is registered by then)', async () => {
    const nats = await startNats();
    const redis = await startRedis();
    servers.push(nats, redis);
    for (const options of [{ natsUrl: nats.url }, { redisUrl: redis.url }]) {
      const a = await createBroker({ ...options, brokers });
      opened.push(a);
      for (let round = 0; round < 20; round++) {
        const b = await createBroker({ ...options, brokers });
        opened.push(b);
        const heard: string[] = [];
        b.subscribe((p) => heard.push(p));
        await a.publish(String(round + 1));
        // The write's wait is over: the broker has the message, so the started subscriber gets it without polling.
        await waitFor(`${Object.keys(options)[0]} round ${round}`, () => heard.includes(String(round + 1)), {
          timeoutMs: 2000,
        });
      }
    }
  });

  it('NATS: after an outage longer than the client default retry limit (10 × 2 s), announcements flow again without a restart', async () => {
    const nats = await startNats();
    servers.push(nats);
    const a = await createBroker({ natsUrl: nats.url, brokers });
    const b = await createBroker({ natsUrl: nats.url, brokers });
    opened.push(a, b);
    const heard: string[] = [];
    b.subscribe((p) => heard.push(p));
    await a.publish('1');
    await waitFor('B hears position 1', () => heard.includes('1'), { timeoutMs: 5000 });

    await nats.stop();
    // Longer than the nats client's default reconnect budget: the client must not give up after it.
    await new Promise((r) => setTimeout(r, 23_000));
    const whileDown = a.connected;
    await nats.start();
    // Published right after the restart, before the clients reconnected: it must still arrive, soon.
    await a.publish('2').catch(() => undefined);
    await waitFor('B hears position 2 after the outage', () => heard.includes('2'), { timeoutMs: 15_000 });
    expect(whileDown).toBe(false);
    expect(a.connected && b.connected).toBe(true);
  });

  it('Redis: a position announced while Redis is down answers at once and reaches the other replica once Redis is back; errors are logged once, not printed', async () => {
    const printed = vi.spyOn(console, 'error');
    const redis = await startRedis();
    servers.push(redis);
    const { logger, lines } = capturedLogger();
    const a = await createBroker({ redisUrl: redis.url, logger, brokers });
    const b = await createBroker({ redisUrl: redis.url, brokers });
    opened.push(a, b);
    const heard: string[] = [];
    b.subscribe((p) => heard.push(p));
    await a.publish('1');
    await waitFor('B hears position 1', () => heard.includes('1'), { timeoutMs: 5000 });

    await redis.stop();
    await new Promise((r) => setTimeout(r, 500));
    // A write waits on its announcement: with Redis down it must not wait on Redis.
    const started = Date.now();
    await a.publish('5').catch(() => undefined);
    expect(Date.now() - started).toBeLessThan(1000);
    // Several reconnect attempts fail while it stays down.
    await new Promise((r) => setTimeout(r, 2500));
    const whileDown = a.connected;
    await redis.start();
    // Nothing else is published: the failed announcement itself must be retried.
    await waitFor('B hears position 5 after Redis returned', () => heard.includes('5'), { timeoutMs: 10_000 });
    expect(whileDown).toBe(false);
    expect(a.connected).toBe(true);

    const unhandled = printed.mock.calls.filter((args) => String(args[0]).includes('Unhandled error event'));
    expect(unhandled).toEqual([]);
    const states = lines.filter((l) => l.connection === 'event broker (Redis)').map((l) => l.msg);
    expect(states).toEqual([
      'event broker (Redis) connection lost; reconnecting',
      'event broker (Redis) connection restored',
    ]);
  });
});
