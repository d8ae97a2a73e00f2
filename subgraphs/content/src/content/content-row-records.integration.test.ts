// RowRecords on content rows, on PostgreSQL and PGlite: the table holds exactly what each batch of changes wrote.
import { RowRecords } from '@cp/db';
import { openTestDatabase, type TestDatabase } from '@cp/db/testing';
import { EntityStatus } from '@cp/graphql';
import type { EntityManager } from '@mikro-orm/postgresql';
import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentDatabase } from '../index';
import { Content } from './content.entity';

const runs = { seed: Number(process.env.FC_SEED ?? 20261129), numRuns: Number(process.env.FC_RUNS ?? 25) };
const scope = { organizationId: 'org-rows', projectId: 'project-rows' };

/** The members a transition may change, each with values that include the awkward ones. */
const text = fc.oneof(fc.string(), fc.constantFrom('', 'é', '😀', '\ud83d', "o'; drop table content; --"));
const json = fc.jsonValue({ maxDepth: 2 }).map((value) => ({ value }));
const change = fc.record(
  {
    name: text.filter((name) => name.length > 0),
    description: fc.option(text),
    status: fc.constantFrom(...Object.values(EntityStatus)),
    version: fc.option(fc.integer({ min: 1, max: 1000 })),
    lastPublishedVersion: fc.option(fc.integer({ min: 1, max: 1000 })),
    isTemplate: fc.boolean(),
    content: json,
    tags: fc.array(fc.string(), { maxLength: 3 }),
    metadata: json,
    compiled: text,
  },
  { requiredKeys: [] },
);
/**
 * A batch: changes to some of the three records (a record may appear twice), saved by one call. `reorder` then gives
 * the record's JSON members back with their keys in reverse order: the same values, so no change of its own.
 */
const batch = fc.array(
  fc.record({ record: fc.nat(2), change: fc.oneof(fc.constant({}), change), reorder: fc.boolean() }),
  { minLength: 1, maxLength: 4 },
);

/** The same JSON value with every object's keys in reverse order. */
const reversed = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(reversed)
    : value && typeof value === 'object'
      ? Object.fromEntries(
          Object.entries(value)
            .reverse()
            .map(([k, v]) => [k, reversed(v)]),
        )
      : value;

/** A value as JSON holds it (a date as its text); jsonb keeps an object's keys in an order of its own. */
const plain = (value: unknown) => JSON.parse(JSON.stringify(value ?? null));

/** A lone surrogate is written as U+FFFD, as the driver writes text. */
const wellFormed = (value: unknown) => (typeof value === 'string' ? Buffer.from(value).toString() : value);

/**
 * A new entry in `em`'s unit of work, its JSON members objects of several keys, so that `reorder` has an order to
 * change until a change replaces them.
 */
const newEntry = (em: EntityManager, name: string) =>
  em.create(Content, {
    ...scope,
    typeId: 'type',
    typeVersion: 1,
    packageVersion: '0.0.0',
    name,
    content: { a: 1, bb: { c: 2, d: [1, { e: 1, ff: 2 }] } },
    metadata: { x: 1, yy: 'z' },
    compiled: '',
    createdById: 'tester',
  });

describe.each(['postgres', 'pglite'] as const)('RowRecords on %s', (kind) => {
  let db: TestDatabase;
  const rows = new RowRecords(Content);

  beforeAll(async () => {
    db = await openTestDatabase(kind, [contentDatabase]);
  });
  afterAll(() => db?.destroy());

  it('writes what each change touched, one revision per changed record, nothing for an unchanged one (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(batch, { minLength: 1, maxLength: 5 }), async (batches) => {
        const em = db.orm.em.fork();
        const ids = [0, 1, 2].map((i) => newEntry(em, `entry ${i}`).id);
        await em.flush();
        // The model: each record's members and revision as the table must hold them.
        const model = new Map<string, Record<string, unknown>>();
        for (const id of ids) {
          const { revision, updatedAt, ...members } = await em.fork().findOneOrFail(Content, id);
          model.set(id, { ...members, revision, updatedAt });
        }
        for (const changes of batches) {
          const started = Date.now();
          await em.fork().transactional(async (tx) => {
            const locked = new Map((await rows.lockMany(tx, scope, [...ids].reverse())).map((r) => [r.id, r]));
            expect([...locked.keys()]).toEqual([...ids].sort());
            const touched = new Set<string>();
            for (const { record, change, reorder } of changes) {
              const entry = locked.get(ids[record]!)!;
              const expected = model.get(entry.id)!;
              for (const [member, value] of Object.entries(change)) {
                if (!isDeepStrictEqual(plain(wellFormed(value)), plain(expected[member]))) touched.add(entry.id);
                expected[member] = wellFormed(value);
              }
              Object.assign(entry, change);
              if (reorder)
                Object.assign(entry, { content: reversed(entry.content), metadata: reversed(entry.metadata) });
            }
            await rows.save(tx, [...locked.values()]);
            for (const id of touched) model.get(id)!.revision = (model.get(id)!.revision as number) + 1;
            for (const entry of locked.values()) {
              const expected = model.get(entry.id)!;
              expect(entry.revision).toBe(expected.revision);
              // A written record's update time moves to the write's; the others' stay as the model holds them.
              if (!touched.has(entry.id)) continue;
              expect(entry.updatedAt.getTime()).toBeGreaterThanOrEqual(started);
              expected.updatedAt = entry.updatedAt;
            }
          });
          for (const id of ids) {
            const stored = await em.fork().findOneOrFail(Content, id);
            const expected = model.get(id)!;
            for (const [member, value] of Object.entries(expected))
              expect(plain(stored[member as keyof Content]), member).toEqual(plain(value));
          }
        }
      }),
      runs,
    );
  });

  it('refuses text longer than its column with the member named, and writes nothing', async () => {
    const em = db.orm.em.fork();
    const entry = newEntry(em, 'short');
    await em.flush();
    const write = em.fork().transactional(async (tx) => {
      const locked = (await rows.lock(tx, scope, entry.id))!;
      locked.name = 'x'.repeat(256);
      await rows.save(tx, [locked]);
    });
    await expect(write).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { errors: [{ path: '/name', message: 'must be at most 255 characters' }] },
    });
    const stored = await em.fork().findOneOrFail(Content, entry.id);
    expect([stored.name, stored.revision]).toEqual(['short', 1]);
  });

  it('locks one record of its project only', async () => {
    const em = db.orm.em.fork();
    const entry = newEntry(em, 'scoped');
    await em.flush();
    await em.fork().transactional(async (tx) => {
      expect((await rows.lock(tx, scope, entry.id))?.name).toBe('scoped');
      expect(await rows.lock(tx, { ...scope, projectId: 'other' }, entry.id)).toBeNull();
      expect(await rows.lockMany(tx, { ...scope, organizationId: 'other' }, [entry.id])).toEqual([]);
    });
  });
});
