import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../testing';
import { LocalBroker } from './broker';
import { EventDispatcher } from './dispatcher';
import { EventRecord } from './event.entity';
import { readEvents, type EventFilter } from './event-query';
import { recordEvent } from './record-event';

/** Holds each announcement until the test releases it: the dispatcher's runs then advance one step at a time. */
class GatedBroker extends LocalBroker {
  private readonly arrivals: ((release: () => void) => void)[] = [];
  private readonly held: (() => void)[] = [];
  override async publish(position: string) {
    await new Promise<void>((release) => {
      const waiting = this.arrivals.shift();
      if (waiting) waiting(release);
      else this.held.push(release);
    });
    await super.publish(position);
  }
  /** The next run to reach its announcement; call the result to let it finish. */
  arrival(): Promise<() => void> {
    const held = this.held.shift();
    return held ? Promise.resolve(held) : new Promise((r) => this.arrivals.push(r));
  }
}

const filter: EventFilter = { organizationId: 'o', projectId: 'p', visibility: 'admin' };
const input = (resourceId: string) => ({
  resourceType: 'content' as const,
  action: 'created' as const,
  resourceId,
  organizationId: 'o',
  projectId: 'p',
});

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
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        db.orm.em.fork().transactional(async (tx) => void recordEvent(tx, input(`w${i}`))),
      ),
    );
    await Promise.all([dispatcher.flush(), dispatcher.flush()]);
    const all = await readEvents(db.orm.em.fork(), filter, 0n, 100);
    const positions = all.map((e) => Number(e.position));
    expect(all).toHaveLength(42);
    expect(new Set(positions).size).toBe(42);
    expect(positions).toEqual([...positions].sort((x, y) => x - y));
  });

  it('settle waits for the run that covers the commits made before it, not for the dispatcher to idle', async () => {
    const broker = new GatedBroker();
    const gated = new EventDispatcher(db.orm, broker);
    const commit = (id: string) => db.orm.em.fork().transactional(async (tx) => void recordEvent(tx, input(id)));
    await commit('first');
    gated.kick();
    const firstRun = await broker.arrival();
    // Committed while run 1 runs (its kick queues run 2): the writer then waits for run 2.
    await commit('mine');
    gated.kick();
    let settled = false;
    const settling = gated.settle().then(() => (settled = true));
    firstRun();
    const secondRun = await broker.arrival();
    expect(settled).toBe(false);
    // Writes keep coming: run 3 is queued before run 2 ends. The writer of 'mine' must not wait for it.
    await commit('later');
    gated.kick();
    secondRun();
    const thirdRun = await broker.arrival();
    expect(settled).toBe(true);
    const mine = await db.orm.em.fork().findOneOrFail(EventRecord, { resourceId: 'mine' });
    expect(mine.position).not.toBeNull();
    thirdRun();
    await settling;
    await gated.stop();
  });

  it('announces a position that covers a commit another dispatcher numbered but has not announced yet', async () => {
    const gated = new GatedBroker();
    const elsewhere = new EventDispatcher(db.orm, gated);
    const local = new LocalBroker();
    const heard: bigint[] = [];
    local.subscribe((position) => heard.push(BigInt(position)));
    const here = new EventDispatcher(db.orm, local);

    await db.orm.em.fork().transactional(async (tx) => void recordEvent(tx, input('numbered-elsewhere')));
    const elsewhereRun = elsewhere.flush();
    const release = await gated.arrival(); // numbered and committed, its announcement held
    const all = await readEvents(db.orm.em.fork(), filter, 0n, 10_000);
    const position = BigInt(all.find((e) => e.resourceId === 'numbered-elsewhere')!.position!);

    await here.flush(); // the pass a write of this process waits for: it numbers nothing
    expect(heard.some((p) => p >= position)).toBe(true);
    release();
    await elsewhereRun;
  });
});
