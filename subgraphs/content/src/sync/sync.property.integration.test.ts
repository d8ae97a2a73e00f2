// Sync invariants over generated histories of writes, on real databases: an initial sync plus every delta in order
// equals what the client list answers at the last token; replaying from an earlier token is harmless.
import { loadConfig } from '@cp/config';
import { EventDispatcher, LocalBroker } from '@cp/db';
import { openTestDatabase, type TestDatabase } from '@cp/db/testing';
import { adminPrincipal, runOperation, type RunOptions } from '@cp/graphql/testing';
import { DEFAULT_LOCALES, type KeyVisibility, type Principal } from '@cp/graphql';
import fc from 'fast-check';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildContentSubgraph, contentDatabase } from '../index';
import type { SyncArgs, SyncPage } from './sync.inputs';
import { SyncService } from './sync.service';
import { SyncTokens } from './sync-token';

const runs = { seed: Number(process.env.FC_SEED ?? 20261128), numRuns: Number(process.env.FC_RUNS ?? 15) };
const PAGE = 3;
const LOCALES = ['en', 'de'] as const;

type Op =
  | { kind: 'create'; locale: string }
  | { kind: 'edit'; slot: number; locale: string; n: number }
  | { kind: 'publish' | 'unpublish' | 'delete' | 'restore'; slot: number }
  | { kind: 'step' | 'catch-up'; client: number }
  | { kind: 'number' };

const slot = fc.nat(2);
const locale = fc.constantFrom(...LOCALES);
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('create' as const), locale }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('edit' as const), slot, locale, n: fc.nat(9) }) },
  {
    weight: 5,
    arbitrary: fc.record({ kind: fc.constantFrom('publish' as const, 'unpublish' as const), slot }),
  },
  { weight: 4, arbitrary: fc.record({ kind: fc.constantFrom('delete' as const, 'restore' as const), slot }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('step' as const), client: fc.nat(2) }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('catch-up' as const), client: fc.nat(2) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('number' as const) }) },
);

/** What both sides answer of an entry, compared member by member. */
const FIELDS = 'id name version status tags content metadata typeVersion updatedAt';
const normal = (e: Record<string, unknown>) => ({
  id: e.id,
  name: e.name,
  version: e.version,
  status: e.status,
  tags: e.tags,
  content: e.content,
  metadata: e.metadata,
  typeVersion: e.typeVersion,
  updatedAt: new Date(e.updatedAt as string | Date).toISOString(),
});

/** A client keeping a copy: its entries, where it stands, and the sync tokens it was given. */
interface Client {
  view: KeyVisibility;
  locale?: string;
  entries: Map<string, ReturnType<typeof normal>>;
  next: SyncArgs;
  /** Inside an initial sync: its pages delete nothing. */
  snapshot: boolean;
  syncTokens: string[];
}

describe.each(['postgres', 'pglite'] as const)('sync (%s, property test)', (kind) => {
  let db: TestDatabase;
  let schema: RunOptions['schema'];
  let dispatcher: EventDispatcher;
  const sync = new SyncService(new SyncTokens(new Uint8Array(32).fill(7)), PAGE);
  let project = 0;

  beforeAll(async () => {
    db = await openTestDatabase(kind, [contentDatabase]);
    dispatcher = new EventDispatcher(db.orm, new LocalBroker());
    schema = (
      await buildContentSubgraph({
        config: loadConfig({ DATA_DIR: tmpdir(), EMBEDDINGS: 'off' }),
        secret: new Uint8Array(32),
      })
    ).schema;
  }, 120_000);
  afterAll(async () => {
    await dispatcher?.stop();
    await db?.destroy();
  });

  /** Runs the history in a new project with three syncing clients, then checks every client's copy. */
  const check = async (ops: Op[]) => {
    const scope = { organizationId: 'o', projectId: `p${++project}` };
    const projects = { exists: async () => true, locales: async () => DEFAULT_LOCALES };
    const as = (principal: Principal): RunOptions => ({ schema, em: db.orm.em, principal, projects });
    const admin = as(adminPrincipal('o', 'u'));
    const key = (view: KeyVisibility) => as({ kind: 'apiKey', keyId: `k-${view}`, ...scope, scope: view } as Principal);
    const exec = async (run: RunOptions, source: string, variables: Record<string, unknown> = {}) => {
      const res = await runOperation(run, source, { ...scope, ...variables });
      return { data: res.data as any, errors: res.errors };
    };
    const vars = '$organizationId: ID!, $projectId: ID!';
    const at = 'organizationId: $organizationId, projectId: $projectId';
    const typeId = (
      await exec(
        admin,
        `mutation(${vars}) { createContentType(${at}, input: { name: "T", schema: { type: "object" } }) { id } }`,
      )
    ).data.createContentType.id;
    await exec(admin, `mutation(${vars}, $id: ID!) { publishContentType(${at}, id: $id) { id } }`, { id: typeId });

    const ids: string[] = [];
    const clients: Client[] = [
      { view: 'published', entries: new Map(), next: { initial: true }, snapshot: true, syncTokens: [] },
      { view: 'preview', entries: new Map(), next: { initial: true }, snapshot: true, syncTokens: [] },
      {
        view: 'published',
        locale: 'en',
        entries: new Map(),
        next: { initial: true, locale: 'en' },
        snapshot: true,
        syncTokens: [],
      },
    ];

    /** One page for the client, applied; checks what every page promises. */
    const step = async (client: Client): Promise<SyncPage> => {
      const page = await sync.page(db.orm.em.fork(), scope, client.view, client.next, { compiled: false });
      const named = [...page.items.map((e) => e.id), ...page.deleted.map((d) => d.id)];
      expect(new Set(named).size).toBe(named.length); // each entry once
      expect(named.length).toBeLessThanOrEqual(PAGE);
      if (client.next.initial) client.snapshot = true;
      if (client.snapshot) expect(page.deleted).toEqual([]);
      if (page.nextSyncToken) client.snapshot = false;
      expect(Boolean(page.nextPageToken) !== Boolean(page.nextSyncToken)).toBe(true);
      for (const entry of page.items) client.entries.set(entry.id, normal(entry as never));
      for (const { id } of page.deleted) client.entries.delete(id);
      if (page.nextSyncToken) client.syncTokens.push(page.nextSyncToken);
      client.next = page.nextPageToken ? { pageToken: page.nextPageToken } : { syncToken: page.nextSyncToken };
      return page;
    };
    /** Pages until the last one of the sync in progress. */
    const walk = async (client: Client) => {
      while (!(await step(client)).nextSyncToken);
    };
    /** The client list, walked to the end, as the client's key sees it. */
    const listed = async (client: Client) => {
      const all = new Map<string, ReturnType<typeof normal>>();
      let lastKey: string | undefined;
      do {
        const { data, errors } = await exec(
          key(client.view),
          `query(${vars}, $lastKey: String) { contents(${at}, limit: 7, lastKey: $lastKey) { data { ${FIELDS} } pagination { lastKey } } }`,
          { lastKey },
        );
        expect(errors).toBeUndefined();
        for (const e of data.contents.data)
          if (!client.locale || e.metadata.locale === client.locale) all.set(e.id, normal(e));
        lastKey = data.contents.pagination.lastKey ?? undefined;
      } while (lastKey);
      return all;
    };
    const sorted = (m: Map<string, unknown>) => [...m.entries()].sort(([a], [b]) => a.localeCompare(b));

    // A few entries from the start, so that most of the history acts on entries.
    const history: Op[] = [...LOCALES, 'en'].map((l) => ({ kind: 'create', locale: l }));
    for (const o of [...history, ...ops]) {
      const id = ids.length > 0 && 'slot' in o ? ids[o.slot % ids.length] : undefined;
      if (o.kind === 'create') {
        const res = await exec(
          admin,
          `mutation(${vars}, $t: ID!, $m: JSONObject) { createContent(${at}, input: { typeId: $t, name: "e${ids.length}", content: { n: 0 }, metadata: $m }) { id } }`,
          { t: typeId, m: { locale: o.locale } },
        );
        ids.push(res.data.createContent.id);
      } else if (o.kind === 'step') await step(clients[o.client]!);
      else if (o.kind === 'catch-up') {
        await dispatcher.flush();
        await walk(clients[o.client]!);
      } else if (o.kind === 'number') await dispatcher.flush();
      else if (id && o.kind === 'edit')
        await exec(
          admin,
          `mutation(${vars}, $id: ID!, $c: JSONObject, $m: JSONObject) { updateContent(${at}, id: $id, input: { content: $c, metadata: $m }) { id } }`,
          { id, c: { n: o.n }, m: { locale: o.locale } },
        );
      else if (id) {
        // Refused transitions (unpublishing a draft, …) are part of the history: they change nothing.
        const field = `${o.kind}Content`;
        await exec(admin, `mutation(${vars}, $id: ID!) { ${field}(${at}, id: $id) { id } }`, { id });
      }
    }

    await dispatcher.flush();
    for (const client of clients) {
      // Finish the sync in progress, then one delta: it carries every change since that sync's start.
      await walk(client);
      await walk(client);
      const expected = sorted(await listed(client));
      expect(sorted(client.entries)).toEqual(expected);
      // Caught up: a delta now is empty, and replaying any earlier token's deltas leaves the copy as it is.
      const now = await sync.page(db.orm.em.fork(), scope, client.view, client.next, { compiled: false });
      expect([now.items, now.deleted, now.nextPageToken]).toEqual([[], [], undefined]);
      for (const token of [...client.syncTokens]) {
        client.next = { syncToken: token };
        await walk(client);
        expect(sorted(client.entries)).toEqual(expected);
      }
    }
  };

  it('an initial sync plus every delta equals the client list at the last token; replays change nothing', async () => {
    await fc.assert(fc.asyncProperty(fc.array(op, { minLength: 5, maxLength: 40 }), check), runs);
  }, 600_000);

  it('brings back a restored entry whose deletion a client had already applied', async () => {
    const catchUp = { kind: 'catch-up', client: 0 } as const;
    const slot = 0;
    await check([{ kind: 'publish', slot }, catchUp, { kind: 'delete', slot }, catchUp, { kind: 'restore', slot }]);
  }, 60_000);
});
