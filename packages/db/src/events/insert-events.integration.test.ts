// Events inserted as rows: in the order given, with the change's transaction, and heard by its hooks only once it commits.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../testing';
import { sql } from '../transaction-sql';
import { EVENT_ACTIONS, type EventRecord } from './event.entity';
import { insertEvents, onEventsCommitted, onEventsFlushed, recordEvent, type EventInput } from './record-event';

const SEED = Number(process.env.FC_SEED ?? 20261129);
const RUNS = Number(process.env.FC_RUNS ?? 25);

const inputArb: fc.Arbitrary<EventInput> = fc.record({
  resourceType: fc.constantFrom('content' as const, 'tags' as const),
  action: fc.constantFrom(...EVENT_ACTIONS),
  resourceId: fc.uuid(),
  organizationId: fc.constant('o'),
  projectId: fc.option(fc.constant('p'), { nil: null }),
  version: fc.option(fc.integer({ min: 1, max: 1000 }), { nil: null }),
  actorId: fc.option(fc.constant('u'), { nil: null }),
  published: fc.boolean(),
});

describe.each(['postgres', 'pglite'] as const)('insertEvents (%s)', (kind) => {
  let db: TestDatabase;
  const heard: (readonly EventRecord[])[] = [];
  let woken = 0;
  beforeAll(async () => {
    db = await openTestDatabase(kind, []);
    onEventsFlushed(db.orm.em, (events) => heard.push(events));
    onEventsCommitted(db.orm.em, () => woken++);
  });
  afterAll(() => db?.destroy());

  it('writes exactly the events of a committed transaction, in the order given, and tells its hooks at commit only', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(inputArb, { minLength: 1, maxLength: 12 }), fc.boolean(), async (inputs, commit) => {
        heard.length = 0;
        const wokenBefore = woken;
        const resourceIds = inputs.map((i) => i.resourceId);
        const work = db.orm.em.fork().transactional(async (tx) => {
          await insertEvents(tx, inputs);
          // Not before the commit: a change its caller refuses and rolls back (a release) must tell no cache.
          expect(heard).toEqual([]);
          if (!commit) throw new Error('refused');
        });
        if (commit) await work;
        else await expect(work).rejects.toThrow('refused');

        const rows = await sql<Record<string, unknown>>(
          db.orm.em.fork(),
          `select "type", "resource_type", "resource_id", "organization_id", "project_id", "version", "published",
              "actor_id", "occurred_at" is not null as "timed", "position" from "event"
            where "resource_id" in (select jsonb_array_elements_text(?::jsonb)) order by "record_seq"`,
          [JSON.stringify(resourceIds)],
        );
        const expected = inputs.map((i) => ({
          type: `${i.resourceType}.${i.action}`,
          resource_type: i.resourceType,
          resource_id: i.resourceId,
          organization_id: i.organizationId,
          project_id: i.projectId,
          version: i.version,
          published: i.published,
          actor_id: i.actorId,
          timed: true,
          position: null,
        }));
        expect(rows).toEqual(commit ? expected : []);
        expect(woken - wokenBefore).toBe(commit ? 1 : 0);
        const told = heard.flat().map((e) => [e.type, e.resourceId, e.projectId, e.published]);
        expect(told).toEqual(commit ? expected.map((e) => [e.type, e.resource_id, e.project_id, e.published]) : []);
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it('numbers events in the order they were recorded, those held for the flush before those inserted after them', async () => {
    const [first, second, third] = fc.sample(inputArb, { numRuns: 3, seed: SEED });
    await db.orm.em.fork().transactional(async (tx) => {
      recordEvent(tx, first!); // an entity-backed change's, written by the flush
      await insertEvents(tx, [second!]);
      recordEvent(tx, third!);
    });
    const rows = await sql<{ resource_id: string }>(
      db.orm.em.fork(),
      `select "resource_id" from "event" where "resource_id" in (?, ?, ?) order by "record_seq"`,
      [first!.resourceId, second!.resourceId, third!.resourceId],
    );
    expect(rows.map((r) => r.resource_id)).toEqual([first, second, third].map((i) => i!.resourceId));
  });

  it('refuses to insert outside a transaction', async () => {
    await expect(insertEvents(db.orm.em.fork(), [fc.sample(inputArb, 1)[0]!])).rejects.toThrow(/transaction/);
  });
});
