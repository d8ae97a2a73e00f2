// Import of the content subgraph's part of a project into a fresh database: the working links it writes.
import { loadConfig } from '@cp/config';
import { openTestDatabase, type TestDatabase } from '@cp/db/testing';
import { adminPrincipal, fixedProjects, runOperation, type RunOptions } from '@cp/graphql/testing';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildContentSubgraph, contentDatabase } from '../index';
import { createContentTransfer } from './index';

const SECRET = new Uint8Array(32);
const SCOPE = { organizationId: 'o', projectId: 'p' };

describe('content import (real PostgreSQL)', () => {
  let source: TestDatabase;
  let target: TestDatabase;
  let run: RunOptions;
  const exec = async (text: string, variables: Record<string, unknown> = {}) => {
    const result = (await runOperation(run, text, variables)) as { data: any; errors?: unknown[] };
    expect(result.errors).toBeUndefined();
    return result.data;
  };

  beforeAll(async () => {
    const config = loadConfig({ DATA_DIR: tmpdir() });
    [source, target] = await Promise.all([
      openTestDatabase('postgres', [contentDatabase]),
      openTestDatabase('postgres', [contentDatabase]),
    ]);
    run = {
      schema: (await buildContentSubgraph({ config, secret: SECRET })).schema,
      em: source.orm.em,
      principal: adminPrincipal('o', 'u'),
      projects: fixedProjects(['o', 'p']),
    };
  }, 120_000);
  afterAll(async () => {
    await source?.destroy();
    await target?.destroy();
  });

  it('links an entry whose type version the archive leaves out by the schema the project already holds', async () => {
    const type = async (name: string, schema: unknown) => {
      const { id } = (
        await exec(
          `mutation($n: String!, $s: JSONObject!) { createContentType(organizationId: "o", projectId: "p", input: { name: $n, schema: $s }) { id } }`,
          { n: name, s: schema },
        )
      ).createContentType;
      await exec(`mutation($id: ID!) { publishContentType(organizationId: "o", projectId: "p", id: $id) { id } }`, {
        id,
      });
      return id as string;
    };
    const entry = async (typeId: string, name: string, content: unknown) =>
      (
        await exec(
          `mutation($t: ID!, $n: String!, $c: JSONObject!) { createContent(organizationId: "o", projectId: "p", input: { typeId: $t, name: $n, content: $c }) { id } }`,
          { t: typeId, n: name, c: content },
        )
      ).createContent.id as string;
    const author = await entry(await type('Author', { type: 'object' }), 'Ada', {});
    const articleType = await type('Article', { type: 'object', properties: { by: { reference: {} } } });
    const article = await entry(articleType, 'Notes', { by: author });

    const transfer = createContentTransfer(SECRET);
    const { data } = await transfer.export(source.orm.em.fork(), SCOPE);
    const none = Object.fromEntries(Object.keys(data).map((kind) => [kind, []]));
    const load = (part: typeof data) =>
      target.orm.em.fork().transactional((tx) => transfer.import(tx, SCOPE, part, { actorId: 'u', files: new Set() }));
    // The types first, then an archive of the rest that leaves their versions out.
    await load({ ...none, contentTypes: data.contentTypes, contentTypeVersions: data.contentTypeVersions });
    await load({ ...data, contentTypeVersions: [] });

    const links = await target.orm.em
      .getConnection()
      .execute(`select "from_id", "path", "target_id" from "content_link" where "scope" = 'working'`);
    expect(links).toEqual([{ from_id: article, path: '/by', target_id: author }]);
  });
});
