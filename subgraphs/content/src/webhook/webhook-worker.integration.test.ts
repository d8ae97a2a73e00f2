// The webhook worker's round against real PostgreSQL: one round trip per pass, and replicas racing over the event log
// turn every (active matching webhook, event) pair into exactly one delivery while the cursor skips nothing.
import { EventDispatcher, LocalBroker, recordEvent, type EventAction } from '@cp/db';
import { openTestDatabase, type TestDatabase } from '@cp/db/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentDatabase } from '../subgraph';
import { SecretBox } from './secret-box';
import { Webhook } from './webhook.entity';
import { SCAN_LOCK, WebhookWorker } from './webhook-worker';

const runs = { seed: Number(process.env.FC_SEED ?? 20261125), numRuns: Number(process.env.FC_RUNS ?? 15) };
const ACTIONS: EventAction[] = ['created', 'published', 'deleted'];
const TYPES = ACTIONS.map((a) => `content.${a}`);
const box = new SecretBox(new Uint8Array(32));

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}
/** A plan's nodes, depth first. */
const nodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodes)];

describe('webhook worker (postgres)', () => {
  let db: TestDatabase;
  let dispatcher: EventDispatcher;
  beforeAll(async () => {
    db = await openTestDatabase('postgres', [contentDatabase]);
    dispatcher = new EventDispatcher(db.orm, new LocalBroker());
  });
  const workers: WebhookWorker[] = [];
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    await db?.destroy();
  });

  // Private targets refused: every attempt fails at once, without network, and is retried only after a minute.
  const worker = () => {
    const made = new WebhookWorker({ orm: db.orm, box, allowPrivateTargets: false, retryBaseMs: 60_000 });
    workers.push(made);
    return made;
  };
  const sql = <T>(query: string, params: unknown[] = []) => db.orm.em.getConnection().execute<T[]>(query, params);
  const cursorAtMax = async () =>
    (
      await sql<{ ok: boolean }>(
        `select (select "position" from "webhook_cursor") = (select max("position") from "event") as ok`,
      )
    )[0].ok;
  const record = async (projectId: string, events: { action: EventAction }[]) => {
    const ids = await db.orm.em
      .fork()
      .transactional(async (tx) =>
        events.map(
          ({ action }) =>
            recordEvent(tx, { resourceType: 'content', action, resourceId: 'c', organizationId: 'o', projectId }).id,
        ),
      );
    await dispatcher.flush();
    return ids;
  };
  const addWebhook = async (projectId: string, active: boolean, eventTypes: string[]) => {
    const em = db.orm.em.fork();
    const hook = em.create(Webhook, {
      organizationId: 'o',
      projectId,
      url: 'http://127.0.0.1:9/hook',
      eventTypes,
      active,
      secretCiphertext: box.seal('s'),
      createdById: 'u',
    });
    await em.flush();
    return hook.id;
  };

  it('scans and claims in one round trip per pass', async () => {
    await addWebhook('quiet', false, []);
    await record('quiet', [{ action: 'created' }, { action: 'published' }]);
    const knex = db.orm.em.getConnection().getKnex();
    let trips = 0;
    const count = () => void trips++;
    knex.on('query', count);
    try {
      await worker().flush();
    } finally {
      knex.removeListener('query', count);
    }
    expect(trips).toBe(1);
    expect(await cursorAtMax()).toBe(true);
  });

  it('only scans once stopping: the delivery is made but not claimed', async () => {
    const hook = await addWebhook('stopping', true, []);
    await record('stopping', [{ action: 'created' }]);
    const replica = worker();
    await replica.stop();
    await replica.flush();
    const rows = await sql<{ status: string }>(`select "status" from "webhook_delivery" where "webhook_id" = ?`, [
      hook,
    ]);
    expect(rows).toEqual([{ status: 'pending' }]);
  });

  it('reads the event log from its cursor through the position index, however long the log', async () => {
    await addWebhook('long', true, []);
    await record('long', [{ action: 'created' }]);
    await sql(`insert into "event" ("id", "type", "resource_type", "resource_id", "organization_id", "project_id",
        "published", "position")
      select gen_random_uuid(), 'content.created', 'content', 'c', 'o', 'other', false, nextval('event_position_seq')
      from generate_series(1, 5000)`);
    await sql('analyze "event"');
    // Rounds of a thousand events each catch up with the log.
    const replica = worker();
    do await replica.flush();
    while (!(await cursorAtMax()));
    await record('long', [{ action: 'published' }]);
    const knex = db.orm.em.getConnection().getKnex();
    const sent: string[] = [];
    const capture = ({ sql: text }: { sql: string }) => void sent.push(text);
    knex.on('query', capture);
    try {
      await replica.flush();
    } finally {
      knex.removeListener('query', capture);
    }
    expect(await cursorAtMax()).toBe(true);
    // The round's scan, as sent, planned against the log's current statistics.
    const scan = sent.find((text) => text.includes('"webhook_cursor"'))!.split(';\n')[0]!;
    const [{ 'QUERY PLAN': plan }] = await sql<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`explain (format json) ${scan}`);
    const reads = nodes(plan[0].Plan).filter((node) => node['Relation Name'] === 'event');
    expect(reads.map((node) => [node['Node Type'], node['Index Name']])).toEqual([
      ['Index Scan', 'event_position_unique'],
    ]);
  });

  it('leaves the scan to the replica holding its lock, without waiting for the cursor row', async () => {
    const hook = await addWebhook('held', true, []);
    await record('held', [{ action: 'created' }]);
    const deliveries = async () =>
      (await sql<{ n: number }>(`select count(*)::int as n from "webhook_delivery" where "webhook_id" = ?`, [hook]))[0]
        .n;
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let holding!: () => void;
    const held = new Promise<void>((r) => (holding = r));
    const other = db.orm.em.fork().transactional(async (tx) => {
      await tx
        .getConnection()
        .execute(`select pg_advisory_xact_lock(${SCAN_LOCK})`, [], 'all', tx.getTransactionContext());
      await tx
        .getConnection()
        .execute(`select * from "webhook_cursor" for update`, [], 'all', tx.getTransactionContext());
      holding();
      await released;
    });
    await held;
    const blocked = worker();
    try {
      await blocked.flush();
      expect(await deliveries()).toBe(0);
      expect(await cursorAtMax()).toBe(false);
    } finally {
      release();
      await other;
    }
    // Its round claimed the earlier test's due delivery, and that attempt's end kicks another round of its own: left
    // running, that round could hold the scan while the next worker's flush skips it, and the count ran before it
    // committed. Stopped, it starts no other.
    await blocked.stop();
    await worker().flush();
    expect(await deliveries()).toBe(1);
    expect(await cursorAtMax()).toBe(true);
  });

  it('gives every active matching (webhook, event) pair exactly one delivery while replicas race', async () => {
    let run = 0;
    const hook = fc.record({ project: fc.nat(1), active: fc.boolean(), types: fc.subarray(TYPES) });
    const batch = fc.array(fc.record({ project: fc.nat(1), action: fc.constantFrom(...ACTIONS) }), {
      minLength: 1,
      maxLength: 6,
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(hook, { maxLength: 5 }),
        fc.array(batch, { minLength: 1, maxLength: 5 }),
        async (hooks, batches) => {
          // Each run in its own projects (one database for all runs).
          const ns = `r${run++}`;
          const project = (p: number) => `${ns}-p${p}`;
          const made = [];
          for (const h of hooks) made.push({ ...h, id: await addWebhook(project(h.project), h.active, h.types) });
          const events: { id: string; project: number; type: string }[] = [];
          const replicas = [worker(), worker()];
          let written = false;
          const write = async () => {
            for (const b of batches) {
              for (const p of [0, 1]) {
                const mine = b.filter((e) => e.project === p);
                if (mine.length === 0) continue;
                const ids = await record(project(p), mine);
                ids.forEach((id, i) => events.push({ id, project: p, type: `content.${mine[i].action}` }));
              }
            }
            written = true;
          };
          const race = async (replica: WebhookWorker) => {
            while (!written) await replica.flush();
          };
          await Promise.all([write(), ...replicas.map(race)]);
          for (const replica of replicas) await replica.flush();
          await Promise.all(replicas.map((r) => r.stop()));

          const expected = made
            .flatMap((h) =>
              events
                .filter(
                  (e) => h.active && e.project === h.project && (h.types.length === 0 || h.types.includes(e.type)),
                )
                .map((e) => `${h.id}/${e.id} 1`),
            )
            .sort();
          const rows = await sql<{ pair: string }>(
            `select "webhook_id" || '/' || "event_id" || ' ' || count(*) as pair from "webhook_delivery"
              where "webhook_id" in (select "id" from "webhook" where "project_id" like ?) group by "webhook_id", "event_id"`,
            [`${ns}-%`],
          );
          expect(rows.map((r) => r.pair).sort()).toEqual(expected);
          expect(await cursorAtMax()).toBe(true);
        },
      ),
      runs,
    );
  });
});
