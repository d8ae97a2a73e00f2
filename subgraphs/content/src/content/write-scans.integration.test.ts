// Content writes find their rows by key: no write scans a whole table, however large the tables and whatever the
// planner knew of them when it planned (the statistics of a busy database lag behind its tables).
import { loadConfig } from '@cp/config';
import { openDatabase, type Database } from '@cp/db';
import { createPostgresDatabase } from '@cp/db/testing';
import { adminPrincipal, fixedProjects, runOperation, type RunOptions } from '@cp/graphql/testing';
import fc from 'fast-check';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildContentSubgraph, contentDatabase } from '../index';

const runs = { seed: Number(process.env.FC_SEED ?? 20261129), numRuns: Number(process.env.FC_RUNS ?? 40) };
const SCOPE = 'organizationId: "o", projectId: "p"';
/** The tables that grow with a project's content: every write must reach their rows through an index. */
const GROWING = ['content', 'content_version', 'event', 'published_content'];
const ENTRIES = 12;
/** Versions and events copied in beside the real ones, so that a whole-table read would be large. */
const FILLER = 3000;

type Write = {
  action: 'update' | 'publish' | 'unpublish' | 'discard' | 'rollback' | 'bulkPublish';
  entry: number;
  n: number;
};

const MUTATIONS: Record<Write['action'], string> = {
  update: `mutation($id: ID!, $input: UpdateContentInput!) { updateContent(${SCOPE}, id: $id, input: $input) { id } }`,
  publish: `mutation($id: ID!) { publishContent(${SCOPE}, id: $id) { id } }`,
  unpublish: `mutation($id: ID!) { unpublishContent(${SCOPE}, id: $id) { id } }`,
  discard: `mutation($id: ID!) { discardContent(${SCOPE}, id: $id) { id } }`,
  rollback: `mutation($id: ID!) { rollbackContent(${SCOPE}, id: $id, input: { version: 1 }) { id } }`,
  // A batch: this entry and the next two, each with its own rules (lockMany, the projection refreshed as a set).
  bulkPublish: `mutation($ids: [ID!]) { bulkContent(${SCOPE}, input: { action: "publish", ids: $ids }) { results { id } } }`,
};

describe('content writes (postgres)', () => {
  let db: Database;
  let drop: () => Promise<void>;
  let admin: RunOptions;
  const ids: string[] = [];
  /** One connection: the writes and the statistics read here share a backend, whose counts it flushes on demand. */
  const query = (sql: string) => db.orm.em.getConnection().execute(sql);
  const exec = async (source: string, variables: Record<string, unknown> = {}) => {
    const res = await runOperation(admin, source, variables);
    return res.data as any;
  };
  /** Sequential scans so far, per growing table, counted by the server. */
  const scans = async (): Promise<Record<string, number>> => {
    await query('select pg_stat_force_next_flush()');
    const rows = (await query(
      `select relname, seq_scan from pg_stat_user_tables where relname in (${GROWING.map((t) => `'${t}'`).join(', ')})`,
    )) as { relname: string; seq_scan: string }[];
    return Object.fromEntries(rows.map((r) => [r.relname, Number(r.seq_scan)]));
  };

  beforeAll(async () => {
    const pg = await createPostgresDatabase();
    const probe = { intervalMs: 1000, timeoutMs: 2000 };
    db = await openDatabase({
      config: { database: { url: pg.url, poolMax: 1, dataDir: '.', probe } },
      modules: [contentDatabase],
    });
    drop = async () => (await db.close(), await pg.drop());
    const config = loadConfig({ DATA_DIR: tmpdir(), EMBEDDINGS: 'off' });
    const { schema } = await buildContentSubgraph({ config, secret: new Uint8Array(32) });
    admin = { schema, em: db.orm.em, principal: adminPrincipal('o', 'u'), projects: fixedProjects(['o', 'p']) };
    const typeId = (
      await exec(`mutation { createContentType(${SCOPE}, input: { name: "T", schema: { type: "object" } }) { id } }`)
    ).createContentType.id;
    await exec(`mutation($id: ID!) { publishContentType(${SCOPE}, id: $id) { id } }`, { id: typeId });
    for (let i = 0; i < ENTRIES; i++) {
      const create = `mutation($t: ID!, $name: String!) { createContent(${SCOPE}, input: { typeId: $t, name: $name, content: {} }) { id } }`;
      const { id } = (await exec(create, { t: typeId, name: `Entry ${i}` })).createContent;
      await exec(MUTATIONS.publish, { id });
      ids.push(id);
    }
    // The statistics of a young database, kept while it grows (as between two autoanalyze runs): the plans the
    // statements get from now on, and keep, are made for small tables.
    await query('analyze');
    for (const table of GROWING) await query(`alter table "${table}" set (autovacuum_enabled = false)`);
    // Other entries, their versions and their events, copied from the real ones under new keys (the entries into a
    // project of their own; their versions first, so that the projection shows them).
    const columns = (
      await query(`select string_agg(quote_ident(column_name), ', ') as list from information_schema.columns
        where table_name = 'content' and is_generated = 'NEVER'`)
    )[0].list as string;
    await query(`insert into "content_version" ("id", "content_id", "organization_id", "project_id", "version", "content",
        "compiled", "links", "created_by_id", "created_at")
      select gen_random_uuid()::text, v."content_id" || '-' || g, v."organization_id", v."project_id", v."version", v."content",
        v."compiled", v."links", v."created_by_id", v."created_at"
      from "content_version" v, generate_series(1, ${Math.ceil(FILLER / ENTRIES)}) g`);
    await query(`insert into "content" (${columns})
      select ${columns} from jsonb_populate_recordset(null::"content", (
        select jsonb_agg(to_jsonb(c) || jsonb_build_object('id', c."id" || '-' || g, 'project_id', 'filler',
          'name', c."name" || ' ' || g))
        from "content" c, generate_series(1, ${Math.ceil(FILLER / ENTRIES)}) g))`);
    await query(`insert into "event" ("id", "type", "resource_type", "resource_id", "organization_id", "project_id",
        "version", "published", "actor_id", "position")
      select gen_random_uuid(), e."type", e."resource_type", e."resource_id", e."organization_id", e."project_id",
        e."version", e."published", e."actor_id", nextval('event_position_seq')
      from "event" e, generate_series(1, ${Math.ceil(FILLER / 2 / ENTRIES)}) g`);
  }, 120_000);

  afterAll(() => drop?.());

  const writes = fc.array(
    fc.record({
      action: fc.constantFrom<Write['action']>(
        'update',
        'update',
        'publish',
        'publish',
        'unpublish',
        'discard',
        'rollback',
        'bulkPublish',
      ),
      entry: fc.nat({ max: ENTRIES - 1 }),
      n: fc.integer(),
    }),
    { minLength: 5, maxLength: 15 },
  );

  /** Runs each write (refusals by the state table included) and answers the tables it scanned. */
  const scanned = async (sequence: Write[]) => {
    const found: string[] = [];
    for (const write of sequence) {
      const before = await scans();
      const batch = [0, 1, 2].map((i) => ids[(write.entry + i) % ENTRIES]);
      await exec(MUTATIONS[write.action], { id: ids[write.entry], ids: batch, input: { content: { n: write.n } } });
      const after = await scans();
      for (const table of GROWING) if (after[table]! > before[table]!) found.push(`${write.action} scanned ${table}`);
    }
    return found;
  };

  it('scans no growing table, with the statistics of the database when it was small', async () => {
    await fc.assert(
      fc.asyncProperty(writes, async (sequence) => {
        expect(await scanned(sequence)).toEqual([]);
      }),
      runs,
    );
  }, 300_000);

  it('scans no growing table once the statistics are current', async () => {
    await query('analyze');
    await fc.assert(
      fc.asyncProperty(writes, async (sequence) => {
        expect(await scanned(sequence)).toEqual([]);
      }),
      runs,
    );
  }, 300_000);
});
