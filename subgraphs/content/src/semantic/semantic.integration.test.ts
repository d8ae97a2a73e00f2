import { loadConfig } from '@cp/config';
import { openTestDatabase, type TestDatabase } from '@cp/db/testing';
import { adminPrincipal, fixedProjects, runOperation, type RunOptions } from '@cp/graphql/testing';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildContentSubgraph, contentDatabase, contentEmbedder } from '../index';
import { EmbeddingIndexer } from './indexer';

const CORPUS = [
  ['Sourdough basics', 'A beginner guide to baking bread with a natural yeast starter.'],
  ['Quarterly results', 'Revenue grew and earnings beat analyst expectations this quarter.'],
  ['Match report', 'The football match ended in a draw after extra time.'],
  ['Trail running shoes', 'How to choose shoes for running on mountain trails.'],
  ['Houseplant care', 'Water your ferns weekly and keep them out of direct sunlight.'],
];

describe('semantic search (local MiniLM, real PostgreSQL)', () => {
  let db: TestDatabase;
  let run: RunOptions;
  let indexer: EmbeddingIndexer;
  const exec = async (source: string, variables: Record<string, unknown> = {}) =>
    (await runOperation(run, source, variables)) as { data: any; errors?: unknown[] };

  beforeAll(async () => {
    const config = loadConfig({ DATA_DIR: tmpdir() });
    db = await openTestDatabase('postgres', [contentDatabase]);
    const embedder = contentEmbedder(config)!;
    run = {
      schema: (await buildContentSubgraph({ config, secret: new Uint8Array(32), embedder })).schema,
      em: db.orm.em,
      principal: adminPrincipal('o', 'u'),
      projects: fixedProjects(['o', 'p']),
    };
    indexer = new EmbeddingIndexer(db.orm, embedder);
    const typeId = (
      await exec(
        `mutation { createContentType(organizationId: "o", projectId: "p", input: { name: "Article", schema: { type: "object" } }) { id } }`,
      )
    ).data.createContentType.id;
    await exec(`mutation($id: ID!) { publishContentType(organizationId: "o", projectId: "p", id: $id) { id } }`, {
      id: typeId,
    });
    for (const [name, body] of CORPUS) {
      await exec(
        `mutation($t: ID!, $n: String!, $b: String!) { createContent(organizationId: "o", projectId: "p", input: { typeId: $t, name: $n, content: { body: $b } }) { id } }`,
        { t: typeId, n: name, b: body },
      );
    }
    await indexer.flush();
  }, 120_000);
  afterAll(async () => {
    await indexer?.stop();
    await db?.destroy();
  });

  it.each([
    ['homemade loaf with wild yeast', 'Sourdough basics'],
    ['company profits were better than forecast', 'Quarterly results'],
    ['which sneakers for hiking paths', 'Trail running shoes'],
  ])('ranks the paraphrase “%s” first', async (query, expected) => {
    const { data } = await exec(
      `query($q: String) { contents(organizationId: "o", projectId: "p", query: $q) { data { name } } }`,
      { q: query },
    );
    expect(data.contents.data[0].name).toBe(expected);
  });

  it('leaves unrelated entries out, and re-embeds an edited entry', async () => {
    const { data } = await exec(
      `query { contents(organizationId: "o", projectId: "p", query: "spreadsheet formulas for accountants") { data { name } } }`,
    );
    expect(data.contents.data.map((e: { name: string }) => e.name)).not.toContain('Houseplant care');
    const search = await exec(
      `query { searchContent(organizationId: "o", projectId: "p", input: { query: "caring for indoor plants" }) { data { name } pagination { total } } }`,
    );
    expect(search.data.searchContent.data[0].name).toBe('Houseplant care');

    const match = (
      await exec(`query { contents(organizationId: "o", projectId: "p", query: "football") { data { id name } } }`)
    ).data.contents.data[0];
    expect(match.name).toBe('Match report');
    await exec(
      `mutation($id: ID!) { updateContent(organizationId: "o", projectId: "p", id: $id, input: { name: "Recipe", content: { body: "Slow-cooked lentil soup with cumin and lemon." } }) { id } }`,
      { id: match.id },
    );
    await indexer.flush();
    const soup = await exec(
      `query { contents(organizationId: "o", projectId: "p", query: "a warm bowl of bean stew") { data { id } } }`,
    );
    expect(soup.data.contents.data[0].id).toBe(match.id);
  });

  it('pages ranked results with a cursor: same order as one page, no overlap, a tampered cursor is 400', async () => {
    const list = `query($q: String, $limit: Int, $lastKey: String) {
      contents(organizationId: "o", projectId: "p", query: $q, limit: $limit, lastKey: $lastKey) { data { id } pagination { lastKey } } }`;
    // The first query of these that matches several entries (the model decides; the set is fixed, so it is deterministic).
    let q = '';
    let whole: { data: { id: string }[]; pagination: { lastKey?: string } } = { data: [], pagination: {} };
    for (q of ['baking bread and cooking soup at home', 'food', 'sports and money and plants', 'a guide']) {
      whole = (await exec(list, { q, limit: 100 })).data.contents;
      if (whole.data.length > 1) break;
    }
    expect(whole.pagination.lastKey ?? null).toBeNull();
    expect(whole.data.length).toBeGreaterThan(1);
    const walked: string[] = [];
    let lastKey: string | undefined;
    do {
      const page = (await exec(list, { q, limit: 1, lastKey })).data.contents;
      walked.push(...page.data.map((e: { id: string }) => e.id));
      lastKey = page.pagination.lastKey ?? undefined;
    } while (lastKey && walked.length <= whole.data.length);
    expect(walked).toEqual(whole.data.map((e: { id: string }) => e.id));
    const tampered = await exec(list, { q, limit: 1, lastKey: 'eyJ4IjoxfQ.abcdefghij' });
    expect((tampered.errors?.[0] as { extensions?: { code?: string } }).extensions?.code).toBe('BAD_REQUEST');
  });

  it('gives a semantic search an exact total and every page, beyond 500 matches too', async () => {
    // 600 copies of the sourdough entry's vector (stamped as current, so the indexer leaves them alone).
    const sql = (text: string) => db.orm.em.getConnection().execute(text);
    await sql(`insert into content (id, organization_id, project_id, type_id, type_version, package_version, name, status, is_template, content, compiled, tags, metadata, created_by_id, created_at, updated_at)
      select 'copy-' || lpad(i::text, 4, '0'), 'o', 'p', 't', 1, '0.0.0', 'Loaf copy ' || i, 'draft', false, '{}', '', '[]', '{}', 'u', now(), now() from generate_series(1, 600) as i`);
    await sql(`insert into content_embedding (content_id, organization_id, project_id, vector, source_updated_at)
      select c.id, 'o', 'p', e.vector, c.updated_at from content c, content_embedding e join content s on s.id = e.content_id
       where c.id like 'copy-%' and s.name = 'Sourdough basics'`);
    const search = `query($input: SearchContentInput) { searchContent(organizationId: "o", projectId: "p", input: $input) { data { id } pagination { page limit total } } }`;
    const page = async (n: number) =>
      (
        await exec(search, {
          input: {
            query: 'homemade loaf with wild yeast',
            filter: { name: { like: 'Loaf copy' } },
            page: n,
            limit: 20,
          },
        })
      ).data.searchContent;
    const last = await page(30);
    expect(last.pagination).toEqual({ page: 30, limit: 20, total: 600 });
    // Equal scores tie-break by id, so page 30 holds the last 20 copies.
    expect(last.data.map((e: { id: string }) => e.id)).toEqual(
      Array.from({ length: 20 }, (_, i) => `copy-${String(581 + i).padStart(4, '0')}`),
    );
    expect(await page(31)).toEqual({ data: [], pagination: { page: 31, limit: 20, total: 600 } });
  });
});
