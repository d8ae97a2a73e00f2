// Pins the feed's hand-off (events its own dispatcher just numbered, not read back) to the feed that reads them.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../testing';
import { LocalBroker, type EventBroker } from './broker';
import { EventDispatcher, type NumberedRow } from './dispatcher';
import type { EventRecord } from './event.entity';
import { EventFeed } from './event-feed';
import { currentPosition } from './event-query';
import { recordEvent } from './record-event';

/** Everything a watcher or subscriber can see of an event, with the types of the values (bigint, Date). */
const seen = (e: EventRecord) =>
  JSON.stringify([
    String(e.position),
    Object.entries(e).map(([key, value]) => `${key}:${typeof value}:${value instanceof Date}`),
    e.id,
    e.type,
    e.resourceType,
    e.resourceId,
    e.organizationId,
    e.projectId,
    e.version,
    e.actorId,
    e.published,
    e.occurredAt.toISOString(),
  ]);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('hand-off from the local dispatcher (real PostgreSQL)', () => {
  let db: TestDatabase;
  let dispatchers: EventDispatcher[];
  let handed: EventFeed;
  let reading: EventFeed;
  const sequences: string[][] = [[], []];
  let handOffs = 0;
  /** How long process 1's next announcements take to arrive (a remote broker's delay): set per write. */
  let delay = 0;
  beforeAll(async () => {
    db = await openTestDatabase('postgres', []);
    // Two processes on one database and one broker: process 0's feed takes its own dispatcher's batches directly,
    // and may hear of process 1's earlier batches only later.
    const broker = new LocalBroker();
    const remote: EventBroker = {
      ...broker,
      kind: 'local',
      connected: true,
      publish: async (position) => void setTimeout(() => void broker.publish(position), delay),
      subscribe: (listener) => broker.subscribe(listener),
      close: async () => undefined,
    };
    dispatchers = [broker, remote].map((b) => new EventDispatcher(db.orm, b, undefined, 100).start());
    handed = await new EventFeed(db.orm, broker).open();
    reading = await new EventFeed(db.orm, broker).open();
    dispatchers[0].onNumbered((rows) => void (handed.handOff(rows) && handOffs++));
    [handed, reading].forEach((feed, i) => feed.onEvent((event) => sequences[i].push(seen(event))));
  });
  afterAll(async () => {
    await Promise.all([handed, reading].map((f) => f?.stop()));
    await Promise.all(dispatchers?.map((d) => d.stop()) ?? []);
    await db?.destroy();
  });

  it('delivers the same events, once each, in the same order, as a feed that reads them', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            process: fc.integer({ min: 0, max: 1 }),
            events: fc.integer({ min: 1, max: 3 }),
            pause: fc.integer({ min: 0, max: 15 }),
            delay: fc.integer({ min: 0, max: 20 }),
            // Concurrent writes: the next one starts before this one committed.
            overlap: fc.boolean(),
            version: fc.option(fc.integer({ min: 1, max: 9 }), { nil: null }),
            published: fc.boolean(),
          }),
          { minLength: 1, maxLength: 8 },
        ),
        async (writes) => {
          const from = sequences.map((s) => s.length);
          const running: Promise<void>[] = [];
          for (const w of writes) {
            await sleep(w.pause);
            delay = w.delay;
            const write = db.orm.em
              .fork()
              .transactional(async (tx) => {
                for (let i = 0; i < w.events; i++) {
                  recordEvent(tx, {
                    resourceType: 'content',
                    action: 'updated',
                    resourceId: `r${n++}`,
                    organizationId: 'o',
                    projectId: w.process ? 'p1' : null,
                    version: w.version,
                    actorId: w.process ? 'a' : null,
                    published: w.published,
                  });
                }
              })
              .then(() => dispatchers[w.process].kick());
            running.push(write);
            if (!w.overlap) await write;
          }
          await Promise.all(running);
          await Promise.all(dispatchers.map((d) => d.flush()));
          const last = await currentPosition(db.orm.em.fork());
          for (let waited = 0; (handed.position < last || reading.position < last) && waited < 3000; waited += 10)
            await sleep(10);
          const [viaHandOff, viaReads] = sequences.map((s, i) => s.slice(from[i]));
          expect(viaHandOff).toEqual(viaReads);
          const written = writes.reduce((k, w) => k + w.events, 0);
          expect(viaReads).toHaveLength(written);
          const positions = viaReads.map((s) => BigInt(JSON.parse(s)[0]));
          expect(positions.every((p, i) => i === 0 || p > positions[i - 1])).toBe(true);
        },
      ),
      { seed: Number(process.env.FC_SEED ?? 20261125), numRuns: Number(process.env.FC_RUNS ?? 25) },
    );
    // The property is about the hand-off: it must have happened, not only the reads.
    expect(handOffs).toBeGreaterThan(0);
  });

  it('does not deliver again what a read that was under way when the hand-off came finds', async () => {
    await Promise.all(dispatchers.map((d) => d.flush()));
    // Process 0's dispatcher runs no more passes: one of its own would number (or announce) the event below and hand
    // it over before the test does.
    await dispatchers[0].stop();
    for (let waited = 0; handed.position < reading.position && waited < 3000; waited += 10) await sleep(10);
    const from = sequences[0].length;
    delay = 500;
    await db.orm.em.fork().transactional(
      async (tx) =>
        void recordEvent(tx, {
          resourceType: 'content',
          action: 'deleted',
          resourceId: 'raced',
          organizationId: 'o',
        }),
    );
    // Numbered by the other process (its announcement is late), then handed over while this feed's read is running.
    await dispatchers[1].flush();
    const rows = await db.orm.em
      .fork()
      .getConnection()
      .execute<NumberedRow[]>(`select * from "event" where "resource_id" = 'raced'`);
    handed.kick();
    expect(handed.handOff(rows)).toBe(true);
    await sleep(100);
    await handed.flush();
    expect(sequences[0].slice(from).map((e) => JSON.parse(e)[0])).toEqual([String(rows[0].position)]);
    delay = 0;
  });
});
