// Bulk actions against the single requests they stand for: each id's status and error as its own request's, the
// same final state, and exactly one event per changed entry.
import { loadConfig } from '@cp/config';
import { onEventsCommitted } from '@cp/db';
import { openTestDatabase, type TestDatabase } from '@cp/db/testing';
import { statusOf, type ErrorCode } from '@cp/errors';
import { adminPrincipal, fixedProjects, runOperation, type RunOptions } from '@cp/graphql/testing';
import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildContentSubgraph, contentDatabase } from '../index';

const runs = { seed: Number(process.env.FC_SEED ?? 20261128), numRuns: Number(process.env.FC_RUNS ?? 15) };

type State = 'draft' | 'published' | 'modified' | 'unpublished' | 'deleted' | 'missing';
const STATES: State[] = ['draft', 'published', 'modified', 'unpublished', 'deleted', 'missing'];
const ACTIONS = ['publish', 'unpublish', 'delete', 'addTags', 'removeTags', 'move'] as const;

describe('bulk content actions (real PostgreSQL)', () => {
  let db: TestDatabase;
  let run: RunOptions;
  const typeIds: Record<string, string> = {};
  const folderIds: Record<string, string> = {};
  let serial = 0;
  /** Commits that reported recording events: each wakes the event dispatcher, and a write's answer waits for it. */
  let announced = 0;

  const exec = async (source: string, variables: Record<string, unknown> = {}) => {
    const res = await runOperation(run, source, variables);
    const error = res.errors?.[0] as { message: string; extensions?: { code?: string } } | undefined;
    if (error && !error.extensions?.code) throw new Error(error.message);
    return { data: res.data as any, code: error?.extensions?.code as ErrorCode | undefined };
  };
  const sql = <T>(text: string, params: unknown[] = []) => db.orm.em.getConnection().execute<T[]>(text, params, 'all');
  const lifecycle = (project: string, name: string, id: string) =>
    exec(`mutation($id: ID!) { ${name}(organizationId: "o", projectId: "${project}", id: $id) { id } }`, { id });
  const update = (project: string, id: string, input: Record<string, unknown>) =>
    exec(
      `mutation($id: ID!, $input: UpdateContentInput!) { updateContent(organizationId: "o", projectId: "${project}", id: $id, input: $input) { id } }`,
      { id, input },
    );

  async function prepare(project: string, state: State, tags: string[]): Promise<string> {
    if (state === 'missing') return randomUUID();
    const { data } = await exec(
      `mutation($t: ID!, $n: String!, $tags: [String!]) { createContent(organizationId: "o", projectId: "${project}", input: { typeId: $t, name: $n, content: { n: 0 }, tags: $tags }) { id } }`,
      { t: typeIds[project], n: `E${serial++}`, tags },
    );
    const id = data.createContent.id as string;
    if (state === 'deleted') await lifecycle(project, 'deleteContent', id);
    if (state === 'draft' || state === 'deleted') return id;
    await lifecycle(project, 'publishContent', id);
    if (state === 'modified') await update(project, id, { content: { n: 1 } });
    if (state === 'unpublished') await lifecycle(project, 'unpublishContent', id);
    return id;
  }

  /** The single request a bulk action stands for, on one entry. */
  async function single(project: string, action: (typeof ACTIONS)[number], id: string, tags: string[]) {
    if (action === 'publish') return lifecycle(project, 'publishContent', id);
    if (action === 'unpublish') return lifecycle(project, 'unpublishContent', id);
    if (action === 'delete') return lifecycle(project, 'deleteContent', id);
    if (action === 'move') return update(project, id, { folderId: folderIds[project] });
    const current = await sql<{ tags: string[] }>(`select "tags" from "content" where "id" = ?`, [id]);
    const now = current[0]?.tags ?? [];
    return update(project, id, {
      tags: action === 'addTags' ? [...now, ...tags] : now.filter((t) => !tags.includes(t)),
    });
  }

  const row = async (id: string) =>
    (
      await sql(
        `select "status", "version", "last_published_version", "tags", ("folder_id" is not null) as "filed" from "content" where "id" = ?`,
        [id],
      )
    )[0];
  const eventsOf = (id: string, since: string) =>
    sql(`select "type", "version" from "event" where "resource_id" = ? and "record_seq" > ? order by "record_seq"`, [
      id,
      since,
    ]);
  const lastSeq = async () =>
    String((await sql<{ n: string }>(`select coalesce(max("record_seq"), 0) as n from "event"`))[0].n);

  beforeAll(async () => {
    db = await openTestDatabase('postgres', [contentDatabase]);
    onEventsCommitted(db.orm.em, () => announced++);
    run = {
      schema: (await buildContentSubgraph({ config: loadConfig({ DATA_DIR: tmpdir() }), secret: new Uint8Array(32) }))
        .schema,
      em: db.orm.em,
      principal: adminPrincipal('o', 'u'),
      projects: fixedProjects(['o', 'a'], ['o', 'b']),
    };
    for (const project of ['a', 'b']) {
      const { data } = await exec(
        `mutation { createContentType(organizationId: "o", projectId: "${project}", input: { name: "T", schema: { type: "object" } }) { id } }`,
      );
      typeIds[project] = data.createContentType.id;
      await lifecycle(project, 'publishContentType', typeIds[project]);
      folderIds[project] = (
        await exec(
          `mutation { createFolder(organizationId: "o", projectId: "${project}", input: { name: "F" }) { id } }`,
        )
      ).data.createFolder.id;
    }
  });
  afterAll(() => db?.destroy());

  it('answers each id as its own request would, in order, with one event per changed entry and the same final state', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...ACTIONS),
        fc.array(fc.record({ state: fc.constantFrom(...STATES), tags: fc.subarray(['x', 'y', 'z']) }), {
          minLength: 1,
          maxLength: 6,
        }),
        fc.subarray(['x', 'y', 'z'], { minLength: 1 }),
        fc.array(fc.nat(5), { minLength: 1, maxLength: 8 }),
        async (action, entries, tags, picks) => {
          const a = await Promise.all(entries.map((e) => prepare('a', e.state, e.tags)));
          const b = await Promise.all(entries.map((e) => prepare('b', e.state, e.tags)));
          // Ids picked from the entries, repeats allowed: a repeated id is applied again, as a second request would be.
          const order = picks.map((p) => p % entries.length);
          const since = await lastSeq();
          const announcedBefore = announced;
          const { data, code } = await exec(
            `mutation($input: BulkContentInput!) { bulkContent(organizationId: "o", projectId: "a", input: $input) { results { id status error { code message details } } } }`,
            {
              input: {
                action,
                ids: order.map((i) => a[i]),
                tags: action.endsWith('Tags') ? tags : undefined,
                folderId: action === 'move' ? folderIds.a : undefined,
              },
            },
          );
          expect(code).toBeUndefined();
          expect(announced > announcedBefore).toBe(
            data.bulkContent.results.some((r: { status: number }) => r.status === 200),
          );
          const results = data.bulkContent.results as { id: string; status: number; error: { code: string } | null }[];
          const expected = [];
          for (const i of order) {
            const res = await single('b', action, b[i], tags);
            expected.push({ id: a[i], status: res.code ? statusOf(res.code) : 200, code: res.code ?? null });
          }
          expect(results.map((r) => ({ id: r.id, status: r.status, code: r.error?.code ?? null }))).toEqual(expected);
          for (const [i, id] of a.entries()) {
            expect(await row(id)).toEqual(await row(b[i]));
            // One event per applied result for this entry, and the same events as the single requests gave.
            const applied = results.filter((r) => r.id === id && r.status === 200).length;
            const events = await eventsOf(id, since);
            expect(events).toHaveLength(applied);
            expect(events).toEqual(await eventsOf(b[i], since));
          }
        },
      ),
      runs,
    );
  });

  it('refuses a malformed body as a whole (422 naming each member)', async () => {
    const res = await runOperation(
      run,
      `mutation { bulkContent(organizationId: "o", projectId: "a", input: { action: "addTags", ids: [] }) { results { id } } }`,
    );
    expect(res.errors?.[0]?.extensions).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { errors: [{ path: '/ids' }, { path: '/tags' }] },
    });
  });
});
