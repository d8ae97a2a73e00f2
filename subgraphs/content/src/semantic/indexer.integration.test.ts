// The embedding indexer against the real model and PostgreSQL: which texts reach the model, and what is stored.
import { loadConfig } from '@cp/config';
import { openTestDatabase, type TestDatabase } from '@cp/db/testing';
import { adminPrincipal, fixedProjects, runOperation, type RunOptions } from '@cp/graphql/testing';
import fc from 'fast-check';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildContentSubgraph, contentDatabase, contentEmbedder } from '../index';
import type { Embedder } from './embedder';
import { EmbeddingIndexer, textHash, textOf } from './indexer';

const RUNS = Number(process.env.FC_RUNS ?? 8);
const SEED = Number(process.env.FC_SEED ?? 20261129);
const BODIES = ['Bread with a sourdough starter.', 'Lentil soup with cumin and lemon.', 'Shoes for mountain trails.'];

interface Row {
  id: string;
  name: string;
  description: string | null;
  content: unknown;
}

describe('embedding indexer (local MiniLM, real PostgreSQL)', () => {
  let db: TestDatabase;
  let run: RunOptions;
  let embedder: Embedder;
  let indexer: EmbeddingIndexer;
  /** Every text the indexer sent to the model, in order. */
  const sent: string[] = [];
  const ids: string[] = [];
  const exec = async (source: string, variables: Record<string, unknown> = {}) =>
    (await runOperation(run, source, variables)) as { data: any; errors?: unknown[] };
  const sql = <T>(text: string, params: unknown[] = []) => db.orm.em.getConnection().execute<T[]>(text, params);

  beforeAll(async () => {
    const config = loadConfig({ DATA_DIR: tmpdir() });
    db = await openTestDatabase('postgres', [contentDatabase]);
    embedder = contentEmbedder(config)!;
    run = {
      schema: (await buildContentSubgraph({ config, secret: new Uint8Array(32), embedder })).schema,
      em: db.orm.em,
      principal: adminPrincipal('o', 'u'),
      projects: fixedProjects(['o', 'p']),
    };
    // The real model, with what the indexer asks of it written down.
    const counting: Embedder = {
      model: embedder.model,
      get loaded() {
        return embedder.loaded;
      },
      embed: (texts) => (sent.push(...texts), embedder.embed(texts)),
      close: () => embedder.close(),
    };
    indexer = new EmbeddingIndexer(db.orm, counting);
    const typeId = (
      await exec(
        `mutation { createContentType(organizationId: "o", projectId: "p", input: { name: "Note", schema: { type: "object" } }) { id } }`,
      )
    ).data.createContentType.id;
    await exec(`mutation($id: ID!) { publishContentType(organizationId: "o", projectId: "p", id: $id) { id } }`, {
      id: typeId,
    });
    for (const name of ['First', 'Second'])
      ids.push(
        (
          await exec(
            `mutation($t: ID!, $n: String!, $b: String!) { createContent(organizationId: "o", projectId: "p", input: { typeId: $t, name: $n, content: { body: $b } }) { id } }`,
            { t: typeId, n: name, b: BODIES[0] },
          )
        ).data.createContent.id,
      );
    await indexer.flush();
  }, 120_000);
  afterAll(async () => {
    await indexer?.stop();
    await db?.destroy();
  });

  /** Each entry's current texts (working copy, published version) and the hashes its stored vectors were made from. */
  async function state() {
    const working = await sql<Row>(
      `select "id", "name", "description", "content" from "content" where "id" in (?, ?)`,
      ids,
    );
    const published = await sql<Row>(
      `select p."id", p."name", p."description", v."content"->'content' as "content" from "published_content" p
         join "content_version" v on v."content_id" = p."id" and v."version" = p."version" where p."id" in (?, ?)`,
      ids,
    );
    const stored = await sql<{ content_id: string; text_hash: string | null }>(
      `select "content_id", "text_hash" from "content_embedding" where "content_id" in (?, ?)
       union all select "content_id", "text_hash" from "published_content_embedding" where "content_id" in (?, ?)`,
      [...ids, ...ids],
    );
    return { working, published, stored };
  }

  const vectorOf = async (table: string, id: string) =>
    (await sql<{ vector: number[] }>(`select "vector" from "${table}" where "content_id" = ?`, [id]))[0]?.vector;
  const cosine = (a: number[], b: number[]) => {
    const dot = a.reduce((sum, x, i) => sum + x * b[i], 0);
    return dot / Math.hypot(...a) / Math.hypot(...b);
  };

  it('publishes an indexed working copy without sending its text again', async () => {
    const id = ids[1];
    await exec(
      `mutation($id: ID!) { updateContent(organizationId: "o", projectId: "p", id: $id, input: { content: { body: "Tea brewed from fresh mint leaves." } }) { id } }`,
      { id },
    );
    await indexer.flush();
    sent.length = 0;
    expect(
      (await exec(`mutation($id: ID!) { publishContent(organizationId: "o", projectId: "p", id: $id) { id } }`, { id }))
        .errors,
    ).toBeUndefined();
    await indexer.flush();
    expect(sent).toEqual([]);
    const [working, published] = await Promise.all([
      vectorOf('content_embedding', id),
      vectorOf('published_content_embedding', id),
    ]);
    expect(published).toEqual(working);
  });

  it('sends the model only texts no stored vector of the entry was made from, and every vector is its text’s (property)', async () => {
    const step = fc.oneof(
      fc.record({ kind: fc.constant('text' as const), at: fc.nat(1), body: fc.nat(BODIES.length - 1) }),
      // A change that moves `updated_at` but not the text.
      fc.record({ kind: fc.constant('tags' as const), at: fc.nat(1), tag: fc.nat(3) }),
      fc.record({ kind: fc.constant('publish' as const), at: fc.nat(1) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 6 }), async (steps) => {
        for (const s of steps) {
          const id = ids[s.at];
          if (s.kind === 'text')
            await exec(
              `mutation($id: ID!, $b: String!) { updateContent(organizationId: "o", projectId: "p", id: $id, input: { content: { body: $b } }) { id } }`,
              { id, b: BODIES[s.body] },
            );
          else if (s.kind === 'tags')
            await exec(
              `mutation($id: ID!, $t: String!) { updateContent(organizationId: "o", projectId: "p", id: $id, input: { tags: [$t] }) { id } }`,
              { id, t: `tag-${s.tag}` },
            );
          // Publishing an unchanged entry is refused (409); the indexer then has nothing new either way.
          else
            await exec(`mutation($id: ID!) { publishContent(organizationId: "o", projectId: "p", id: $id) { id } }`, {
              id,
            });

          const before = await state();
          const known = new Set(before.stored.map((row) => `${row.content_id}\0${row.text_hash}`));
          const fresh = new Set(
            [...before.working, ...before.published]
              .filter((row) => !known.has(`${row.id}\0${textHash(embedder.model, textOf(row))}`))
              .map((row) => textOf(row)),
          );
          sent.length = 0;
          await indexer.flush();
          expect([...sent].sort()).toEqual([...fresh].sort());
        }
        const after = await state();
        for (const [table, rows] of [
          ['content_embedding', after.working],
          ['published_content_embedding', after.published],
        ] as const)
          for (const row of rows) {
            const [expected] = await embedder.embed([textOf(row)]);
            expect(cosine((await vectorOf(table, row.id))!, expected)).toBeGreaterThan(0.999);
          }
      }),
      { numRuns: RUNS, seed: SEED },
    );
  }, 300_000);
});
