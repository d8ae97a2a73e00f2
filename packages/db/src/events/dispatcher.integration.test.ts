import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../testing';
import { LocalBroker } from './broker';
import { EventDispatcher } from './dispatcher';
import { readEvents, type EventFilter } from './event-query';
import { recordEvent } from './record-event';

const filter: EventFilter = { organizationId: 'o', projectId: 'p', visibility: 'admin' };
const input = (resourceId: string) => ({ resourceType: 'content' as const, action: 'created' as const, resourceId, organizationId: 'o', projectId: 'p' });

describe('commit-ordered event positions (real PostgreSQL)', () => {
  let db: TestDatabase;
  let dispatcher: EventDispatcher;
  beforeAll(async () => {
    db = await openTestDatabase('postgres', []);
    dispatcher = new EventDispatcher(db.orm, new LocalBroker());
  });
  afterAll(() => db?.destroy());

  it('never lets a reader skip an event that committed late', async () => {
    let releaseSlow!: () => void;
    const slowMayCommit = new Promise<void>((r) => (releaseSlow = r));
    let slowRecorded!: () => void;
    const slowHasRecorded = new Promise<void>((r) => (slowRecorded = r));
    // The slow writer records first (earlier occurredAt) but commits last.
    const slow = db.orm.em.fork().transactional(async (tx) => {
      recordEvent(tx, input('slow'));
      await tx.flush();
      slowRecorded();
      await slowMayCommit;
    });
    await slowHasRecorded;
    await db.orm.em.fork().transactional(async (tx) => void recordEvent(tx, input('fast')));
    await dispatcher.flush();

    const seen = await readEvents(db.orm.em.fork(), filter, 0n, 100);
    expect(seen.map((e) => e.resourceId)).toEqual(['fast']);
    const cursor = BigInt(seen[0].position!);

    releaseSlow();
    await slow;
    await dispatcher.flush();
    const resumed = await readEvents(db.orm.em.fork(), filter, cursor, 100);
    expect(resumed.map((e) => e.resourceId)).toEqual(['slow']);
    expect(BigInt(resumed[0].position!)).toBeGreaterThan(cursor);
  });

  it('gives concurrent writers distinct, gap-free positions that readers see in one order', async () => {
    await Promise.all(Array.from({ length: 40 }, (_, i) => db.orm.em.fork().transactional(async (tx) => void recordEvent(tx, input(`w${i}`)))));
    await Promise.all([dispatcher.flush(), dispatcher.flush()]);
    const all = await readEvents(db.orm.em.fork(), filter, 0n, 100);
    const positions = all.map((e) => Number(e.position));
    expect(all).toHaveLength(42);
    expect(new Set(positions).size).toBe(42);
    expect(positions).toEqual([...positions].sort((x, y) => x - y));
  });
});
