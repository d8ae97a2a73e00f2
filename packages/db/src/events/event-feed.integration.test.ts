import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../testing';
import type { EventBroker } from './broker';
import { EventDispatcher } from './dispatcher';
import { EventFeed } from './event-feed';
import { recordEvent } from './record-event';

/** A broker that loses every notification: the feeds must find the events on their own. */
const deaf: EventBroker = {
  kind: 'redis',
  connected: false,
  publish: async () => undefined,
  subscribe: () => undefined,
  close: async () => undefined,
};
/** The promise (docs/api/events.md): every replica applies every committed event within this long, notified or not. */
const BOUND_MS = 2000;

describe('event feeds without notifications (real PostgreSQL)', () => {
  let db: TestDatabase;
  let dispatchers: EventDispatcher[];
  let feeds: EventFeed[];
  const applied = new Map<string, number[]>();
  const positions: bigint[][] = [[], []];
  beforeAll(async () => {
    db = await openTestDatabase('postgres', []);
    // Two replicas: each with its own dispatcher (only its timer notices the other's writes) and feed.
    dispatchers = [0, 1].map(() => new EventDispatcher(db.orm, deaf).start());
    feeds = await Promise.all([0, 1].map(() => new EventFeed(db.orm, deaf).open()));
    feeds.forEach((feed, replica) =>
      feed.onEvent((event) => {
        applied.set(event.resourceId, [...(applied.get(event.resourceId) ?? []), replica]);
        positions[replica].push(BigInt(event.position!));
      }),
    );
  });
  afterAll(async () => {
    await Promise.all(feeds?.map((f) => f.stop()) ?? []);
    await Promise.all(dispatchers?.map((d) => d.stop()) ?? []);
    await db?.destroy();
  });

  it('every committed event reaches every replica within 2 s, once each, in position order', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 1 }), fc.integer({ min: 0, max: 300 })), {
          minLength: 1,
          maxLength: 4,
        }),
        async (writes) => {
          const ids: string[] = [];
          const committedAt = new Map<string, number>();
          for (const [replica, pause] of writes) {
            await new Promise((r) => setTimeout(r, pause));
            const id = `e${n++}`;
            await db.orm.em.fork().transactional(
              async (tx) =>
                void recordEvent(tx, {
                  resourceType: 'content',
                  action: 'created',
                  resourceId: id,
                  organizationId: 'o',
                  projectId: 'p',
                }),
            );
            committedAt.set(id, Date.now());
            // The writing replica's dispatcher runs on its commit; the notification it sends is lost.
            dispatchers[replica].kick();
            ids.push(id);
          }
          for (const id of ids) {
            while ((applied.get(id)?.length ?? 0) < 2 && Date.now() - committedAt.get(id)! < BOUND_MS + 1000)
              await new Promise((r) => setTimeout(r, 20));
            expect(applied.get(id)?.sort()).toEqual([0, 1]);
            expect(Date.now() - committedAt.get(id)!).toBeLessThan(BOUND_MS + 250);
          }
          expect(feeds[0].position).toBe(feeds[1].position);
          for (const seen of positions) expect(seen.every((p, i) => i === 0 || p > seen[i - 1])).toBe(true);
        },
      ),
      { seed: 20261125, numRuns: Number(process.env.FC_RUNS ?? 8) },
    );
  });
});
