// Releases against the one-by-one path: the same final state, versions and events; a refused release changes nothing;
// overlapping releases published at once queue (one is refused cleanly), never deadlock.
import { loadConfig } from '@cp/config';
import { onEventsFlushed, type EventRecord } from '@cp/db';
import { openTestDatabase, type TestDatabase } from '@cp/db/testing';
import { adminPrincipal, fixedProjects, runOperation, type RunOptions } from '@cp/graphql/testing';
import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildContentSubgraph, contentDatabase } from '../index';

const runs = (numRuns: number) => ({
  seed: Number(process.env.FC_SEED ?? 20261128),
  numRuns: Number(process.env.FC_RUNS ?? numRuns),
});

/** How an entry is prepared before the release: the state it is in, or an id that names no entry. */
type State = 'draft' | 'published' | 'modified' | 'unpublished' | 'deleted' | 'missing';
/** Mostly the action the state allows, so that whole releases pass as well as fail. */
const itemArb = fc
  .record({
    state: fc.oneof(
      { arbitrary: fc.constantFrom<State>('draft', 'published', 'modified', 'unpublished'), weight: 12 },
      { arbitrary: fc.constantFrom<State>('deleted', 'missing'), weight: 1 },
    ),
    refused: fc.nat(9).map((n) => n === 0),
  })
  .map(({ state, refused }) => {
    const allowed = state === 'published' ? 'unpublish' : 'publish';
    return { state, action: refused === (allowed === 'publish') ? 'unpublish' : 'publish' };
  });
const typeItemArb = fc.option(
  fc.record({ state: fc.constantFrom('draft', 'published'), action: fc.constantFrom('publish', 'unpublish') }),
  { nil: undefined },
);

describe('releases (real PostgreSQL)', () => {
  let db: TestDatabase;
  let run: RunOptions;
  const typeIds: Record<string, string> = {};
  const flushed: EventRecord[] = [];
  let serial = 0;

  const exec = async (source: string, variables: Record<string, unknown> = {}) => {
    const res = await runOperation(run, source, variables);
    const error = res.errors?.[0] as { message: string; extensions?: { code?: string; details?: any } } | undefined;
    return { data: res.data as any, code: error?.extensions?.code, details: error?.extensions?.details, error };
  };
  const must = async (source: string, variables: Record<string, unknown> = {}) => {
    const res = await exec(source, variables);
    if (res.error) throw new Error(`${res.error.message} (${res.code})`);
    return res.data;
  };
  const sql = <T>(text: string, params: unknown[] = []) => db.orm.em.getConnection().execute<T[]>(text, params, 'all');
  /** Where the event log stands: events recorded later have a higher `record_seq`. */
  const lastSeq = async () =>
    String((await sql<{ n: string }>(`select coalesce(max("record_seq"), 0) as n from "event"`))[0].n);

  const lifecycle = (project: string, name: string, id: string) =>
    exec(`mutation($id: ID!) { ${name}(organizationId: "o", projectId: "${project}", id: $id) { id } }`, { id });

  async function createType(project: string, state: 'draft' | 'published'): Promise<string> {
    const id = (
      await must(
        `mutation($n: String!) { createContentType(organizationId: "o", projectId: "${project}", input: { name: $n, schema: { type: "object" } }) { id } }`,
        { n: `T${serial++}` },
      )
    ).createContentType.id;
    if (state === 'published') await lifecycle(project, 'publishContentType', id);
    return id;
  }

  /** An entry in `state` (a fresh id that names nothing for `missing`). */
  async function prepare(project: string, state: State): Promise<string> {
    if (state === 'missing') return randomUUID();
    const id = (
      await must(
        `mutation($t: ID!, $n: String!) { createContent(organizationId: "o", projectId: "${project}", input: { typeId: $t, name: $n, content: { n: 0 } }) { id } }`,
        { t: typeIds[project], n: `E${serial++}` },
      )
    ).createContent.id;
    if (state === 'draft') return id;
    if (state === 'deleted') return (await lifecycle(project, 'deleteContent', id), id);
    await lifecycle(project, 'publishContent', id);
    if (state === 'modified')
      await must(
        `mutation($id: ID!) { updateContent(organizationId: "o", projectId: "${project}", id: $id, input: { content: { n: 1 } }) { id } }`,
        { id },
      );
    if (state === 'unpublished') await lifecycle(project, 'unpublishContent', id);
    return id;
  }

  const createRelease = async (project: string, items: unknown[]) =>
    (
      await must(
        `mutation($items: [ReleaseItemInput!]) { createRelease(organizationId: "o", projectId: "${project}", input: { name: "R", items: $items }) { id revision } }`,
        { items },
      )
    ).createRelease as { id: string; revision: number };
  const publishRelease = (project: string, id: string) =>
    exec(
      `mutation($id: ID!) { publishRelease(organizationId: "o", projectId: "${project}", id: $id) { id status publishedAt revision } }`,
      { id },
    );

  /** What a release may change in a project: every row it could write, and the events. */
  const projectState = async (project: string) => ({
    content: await sql(
      `select "id", "status", "version", "last_published_version", "revision", "updated_at" from "content" where "project_id" = ? order by "id"`,
      [project],
    ),
    types: await sql(
      `select "id", "status", "version", "revision" from "content_type" where "project_id" = ? order by "id"`,
      [project],
    ),
    versions: await sql(`select count(*) as n from "content_version" where "project_id" = ?`, [project]),
    published: await sql(`select "id", "version" from "published_content" where "project_id" = ? order by "id"`, [
      project,
    ]),
    releases: await sql(`select "id", "status", "revision" from "release" where "project_id" = ? order by "id"`, [
      project,
    ]),
    events: await sql(`select count(*) as n from "event" where "project_id" = ?`, [project]),
  });

  /** One resource's row and event history, with ids left out so two projects compare. */
  const history = async (table: 'content' | 'content_type', id: string, since: string) => ({
    row: (await sql(`select "status", "version", "last_published_version" from "${table}" where "id" = ?`, [id]))[0],
    events: await sql(
      `select "type", "version", "published" from "event" where "resource_id" = ? and "record_seq" > ? order by "record_seq"`,
      [id, since],
    ),
    published: await sql(`select "version" from "published_content" where "id" = ?`, [id]),
    // Names and publication times differ between the two projects; the rest of each version is the same.
    versions:
      table === 'content'
        ? await sql(
            `select "version", "content" - 'name' - 'metadata' as "content", ("content"->'metadata'->>'publishedAt') is not null as "stamped", "links", "compiled" <> '' as "compiled"
               from "content_version" where "content_id" = ? order by "version"`,
            [id],
          )
        : [],
  });

  /** An entry's published row and links; `rebuilt`: as its own refresh makes them after both are dropped. */
  const projection = async (id: string, rebuilt = false) => {
    if (rebuilt) {
      await sql(`delete from "published_content" where "id" = ?`, [id]);
      await sql(`delete from "content_link" where "from_id" = ? and "scope" = 'published'`, [id]);
      await sql(`select "refresh_published_content"(?)`, [id]);
    }
    return {
      row: await sql(`select *, "search_vector"::text as "search" from "published_content" where "id" = ?`, [id]),
      links: await sql(`select * from "content_link" where "from_id" = ? and "scope" = 'published' order by "path"`, [
        id,
      ]),
    };
  };

  beforeAll(async () => {
    db = await openTestDatabase('postgres', [contentDatabase]);
    onEventsFlushed(db.orm.em, (events) => flushed.push(...events));
    run = {
      schema: (await buildContentSubgraph({ config: loadConfig({ DATA_DIR: tmpdir() }), secret: new Uint8Array(32) }))
        .schema,
      em: db.orm.em,
      principal: adminPrincipal('o', 'u'),
      projects: fixedProjects(['o', 'a'], ['o', 'b'], ['o', 'c']),
    };
    for (const project of ['a', 'b', 'c']) typeIds[project] = await createType(project, 'published');
  });
  afterAll(() => db?.destroy());

  it('publishing a release equals applying its items one by one; a refused one changes nothing and reports every refusal', async () => {
    const outcomes = { applied: 0, refused: 0 };
    await fc.assert(
      fc.asyncProperty(fc.array(itemArb, { minLength: 1, maxLength: 6 }), typeItemArb, async (entries, typeItem) => {
        // The same resources in the same states in two projects: `a` publishes a release, `b` goes one by one.
        const setup = async (project: string) => ({
          entries: await Promise.all(entries.map((e) => prepare(project, e.state))),
          type: typeItem && (await createType(project, typeItem.state)),
        });
        const [a, b] = [await setup('a'), await setup('b')];
        const items = (ids: typeof a) => [
          ...(typeItem ? [{ resourceType: 'content-types', resourceId: ids.type, action: typeItem.action }] : []),
          ...entries.map((e, i) => ({ resourceType: 'content', resourceId: ids.entries[i], action: e.action })),
        ];
        const release = await createRelease('a', items(a));
        const since = await lastSeq();
        const before = await projectState('a');
        flushed.length = 0;
        const published = await publishRelease('a', release.id);

        // One by one, in the order a release applies them: content types first, then entries in the given order.
        const sinceB = await lastSeq();
        const single: { index: number; code?: string }[] = [];
        for (const [index, item] of items(b).entries()) {
          const kind = item.resourceType === 'content' ? 'Content' : 'ContentType';
          const res = await lifecycle('b', `${item.action}${kind}`, item.resourceId!);
          if (res.error && !res.code) throw res.error;
          single.push({ index, code: res.code as string | undefined });
        }
        const refused = single.filter((s) => s.code);
        outcomes[refused.length > 0 ? 'refused' : 'applied']++;
        if (refused.length > 0) {
          expect(published.code).toBe('RELEASE_FAILED');
          expect(
            (published.details.problems as { resourceId: string; code: string }[]).map((p) => [p.resourceId, p.code]),
          ).toEqual(refused.map((s) => [items(a)[s.index].resourceId, s.code]));
          expect(flushed.filter((e) => e.projectId === 'a')).toEqual([]);
          expect(await projectState('a')).toEqual(before);
          return;
        }
        expect(published.error).toBeUndefined();
        expect(published.data.publishRelease).toMatchObject({ status: 'published', revision: release.revision + 1 });
        for (const [i, id] of a.entries.entries())
          expect(await history('content', id, since)).toEqual(await history('content', b.entries[i], sinceB));
        if (a.type)
          expect(await history('content_type', a.type, since)).toEqual(await history('content_type', b.type!, sinceB));
        expect(
          await sql(`select "type", "version" from "event" where "resource_id" = ? and "type" like 'releases.%'`, [
            release.id,
          ]),
        ).toEqual([
          { type: 'releases.created', version: null },
          { type: 'releases.published', version: null },
        ]);
        // The projection the release refreshed in one pass is the one each entry's own refresh makes from scratch.
        for (const id of a.entries) expect(await projection(id)).toEqual(await projection(id, true));
        // A published release can no longer change.
        expect((await publishRelease('a', release.id)).code).toBe('INVALID_STATUS_TRANSITION');
      }),
      runs(12),
    );
    expect(outcomes.applied).toBeGreaterThan(0);
    expect(outcomes.refused).toBeGreaterThan(0);
  });

  it('writes a release in a number of statements that does not grow with its items', async () => {
    // Every statement, the ORM's and the plain ones (`sql`), passes the ORM's `onQuery` hook.
    const onQuery = db.orm.config.get('onQuery');
    const statements = async (size: number) => {
      const ids = [];
      for (let i = 0; i < size; i++) ids.push(await prepare('c', 'draft'));
      const release = await createRelease(
        'c',
        ids.map((id) => ({ resourceType: 'content', resourceId: id, action: 'publish' })),
      );
      let count = 0;
      db.orm.config.set('onQuery', (sql, params) => (count++, onQuery(sql, params)));
      try {
        expect((await publishRelease('c', release.id)).error).toBeUndefined();
      } finally {
        db.orm.config.set('onQuery', onQuery);
      }
      return count;
    };
    const small = await statements(3);
    expect(small).toBeGreaterThan(3);
    expect(await statements(40)).toBe(small);
  });

  it('two overlapping releases published at once: exactly one succeeds, the other is refused cleanly, never a deadlock', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 0, max: 3 }),
        fc.integer({ min: 0, max: 3 }),
        fc.infiniteStream(fc.double({ min: 0, max: 1, noNaN: true })),
        async (shared, onlyFirst, onlySecond, order) => {
          const overlap = await Promise.all(Array.from({ length: shared }, () => prepare('c', 'draft')));
          const own = async (n: number) => Promise.all(Array.from({ length: n }, () => prepare('c', 'draft')));
          // Each release lists its entries in its own shuffled order: locking follows ids, not the list.
          const shuffled = (ids: string[]) =>
            ids
              .map((id) => ({ id, key: order.next().value as number }))
              .sort((x, y) => x.key - y.key)
              .map((x) => ({ resourceType: 'content', resourceId: x.id, action: 'publish' }));
          const first = await createRelease('c', shuffled([...overlap, ...(await own(onlyFirst))]));
          const second = await createRelease('c', shuffled([...overlap, ...(await own(onlySecond))]));
          const results = await Promise.all([publishRelease('c', first.id), publishRelease('c', second.id)]);
          // A deadlock would surface as an error without a code (INTERNAL): never acceptable.
          const outcomes = results.map((r) => (r.error ? (r.code ?? `INTERNAL: ${r.error.message}`) : 'published'));
          expect(outcomes.sort()).toEqual(['RELEASE_FAILED', 'published']);
          const loser = results.find((r) => r.code)!;
          expect(
            (loser.details.problems as { code: string; resourceId: string }[]).map((p) => p.resourceId).sort(),
          ).toEqual([...overlap].sort());
          const versions = await sql<{ n: string }>(
            `select count(*) as n from "content_version" where "content_id" in (${overlap.map(() => '?').join(',')})`,
            overlap,
          );
          expect(Number(versions[0].n)).toBe(shared);
        },
      ),
      runs(10),
    );
  });
});
