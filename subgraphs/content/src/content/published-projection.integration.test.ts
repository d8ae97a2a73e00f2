// The published projection (`published_content`) across every lifecycle transition, and what an API key reads from it.
import { loadConfig } from '@cp/config';
import { openTestDatabase, type TestDatabase } from '@cp/db/testing';
import { adminPrincipal, fixedProjects, runOperation, type RunOptions } from '@cp/graphql/testing';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildContentSubgraph, contentDatabase } from '../index';

const SCOPE = 'organizationId: "o", projectId: "p"';

describe.each(['postgres', 'pglite'] as const)('published projection (%s)', (kind) => {
  let db: TestDatabase;
  let admin: RunOptions;
  let key: RunOptions;
  let typeId: string;
  const exec = async (as: RunOptions, source: string, variables: Record<string, unknown> = {}) => {
    const res = await runOperation(as, source, variables);
    if (res.errors) throw new Error(JSON.stringify(res.errors));
    return res.data as any;
  };
  const mutate = (action: string, id: string, extra = '') =>
    exec(admin, `mutation($id: ID!) { ${action}(${SCOPE}, id: $id${extra}) { status } }`, { id });
  const projection = async (id: string) => {
    const rows = await db.orm.em.getConnection().execute(`select * from "published_content" where "id" = ?`, [id]);
    return rows[0] as Record<string, any> | undefined;
  };
  const versionCreatedAt = async (id: string, version: number) =>
    (
      await db.orm.em
        .getConnection()
        .execute(`select "created_at" from "content_version" where "content_id" = ? and "version" = ?`, [id, version])
    )[0].created_at as Date;
  /** What the key finds by each name and word, and by the tag, in the list, a search and by id. */
  const keySees = async () => {
    const data = await exec(
      key,
      `{
        harvest: contents(${SCOPE}, search: "harvest") { data { id } }
        zorblax: contents(${SCOPE}, search: "zorblax") { data { id } }
        secret: contents(${SCOPE}, tags: "secret") { data { id } }
        named: searchContent(${SCOPE}, input: { filter: { name: { like: "Zorblax" } } }) { data { id } }
        all: contents(${SCOPE}) { data { id name tags version status updatedAt content } }
        one: contents(${SCOPE}, status: published) { data { id } }
      }`,
    );
    const ids = (list: { data: { id: string }[] }) => list.data.map((e) => e.id);
    return {
      harvest: ids(data.harvest),
      zorblax: ids(data.zorblax),
      secret: ids(data.secret),
      named: ids(data.named),
      all: data.all.data,
      one: ids(data.one),
    };
  };

  beforeAll(async () => {
    db = await openTestDatabase(kind, [contentDatabase]);
    const schema = (
      await buildContentSubgraph({
        config: loadConfig({ DATA_DIR: tmpdir(), EMBEDDINGS: 'off' }),
        secret: new Uint8Array(32),
      })
    ).schema;
    const projects = fixedProjects(['o', 'p']);
    admin = { schema, em: db.orm.em, principal: adminPrincipal('o', 'u'), projects };
    key = {
      schema,
      em: db.orm.em,
      principal: { kind: 'apiKey', keyId: 'k', organizationId: 'o', projectId: 'p', scope: 'published' as const },
      projects,
    };
    typeId = (
      await exec(
        admin,
        `mutation { createContentType(${SCOPE}, input: { name: "T", schema: { type: "object" } }) { id } }`,
      )
    ).createContentType.id;
    await exec(admin, `mutation($id: ID!) { publishContentType(${SCOPE}, id: $id) { id } }`, { id: typeId });
  }, 120_000);
  afterAll(() => db?.destroy());

  it('follows publish, unpublish, delete, restore, discard and rollback; never a working-copy edit', async () => {
    const id = (
      await exec(
        admin,
        `mutation($t: ID!) { createContent(${SCOPE}, input: { typeId: $t, name: "Quarterly report", content: { body: "harvest" }, tags: ["public"] }) { id } }`,
        {
          t: typeId,
        },
      )
    ).createContent.id;
    const rename = () =>
      exec(
        admin,
        `mutation($id: ID!) { updateContent(${SCOPE}, id: $id, input: { name: "Zorblax acquisition", content: { body: "embargo zorblax" }, tags: ["secret"] }) { status } }`,
        { id },
      );
    expect(await projection(id)).toBeUndefined(); // a draft is nobody's business

    await mutate('publishContent', id);
    const v1 = await projection(id);
    expect(v1).toMatchObject({
      version: 1,
      name: 'Quarterly report',
      tags: ['public'],
      type_id: typeId,
      is_template: false,
    });
    expect(v1!.updated_at).toEqual(await versionCreatedAt(id, 1));
    const published = await keySees();
    expect(published).toMatchObject({ harvest: [id], zorblax: [], secret: [], named: [], one: [id] });
    expect(published.all).toEqual([
      expect.objectContaining({
        id,
        name: 'Quarterly report',
        tags: ['public'],
        version: 1,
        status: 'published',
        content: { body: 'harvest' },
      }),
    ]);

    // Working-copy edits leave the row as it was (revision and timestamps included) and the key's answers alike.
    await rename();
    expect(await projection(id)).toEqual(v1);
    expect(await keySees()).toEqual(published);
    await mutate('discardContent', id);
    expect(await projection(id)).toEqual(v1);

    await rename();
    await mutate('publishContent', id);
    const v2 = await projection(id);
    expect(v2).toMatchObject({ version: 2, name: 'Zorblax acquisition', tags: ['secret'] });
    expect(v2!.updated_at).toEqual(await versionCreatedAt(id, 2));
    expect(await keySees()).toMatchObject({ harvest: [], zorblax: [id], secret: [id], named: [id] });

    // Rolling back makes a working copy of version 1: the key still sees version 2; discarding it changes nothing.
    await mutate('rollbackContent', id, ', input: { version: 1 }');
    expect(await projection(id)).toEqual(v2);
    expect(await keySees()).toMatchObject({ harvest: [], zorblax: [id] });
    await mutate('discardContent', id);
    expect(await projection(id)).toEqual(v2);

    await mutate('unpublishContent', id);
    expect(await projection(id)).toBeUndefined();
    expect((await keySees()).all).toEqual([]);

    await mutate('publishContent', id);
    expect(await projection(id)).toMatchObject({ version: 3, name: 'Zorblax acquisition' });
    await mutate('deleteContent', id);
    expect(await projection(id)).toBeUndefined();
    expect((await keySees()).all).toEqual([]);

    // Restored over a published version: `modified`, and that version is visible again.
    expect((await mutate('restoreContent', id)).restoreContent.status).toBe('modified');
    expect(await projection(id)).toMatchObject({ version: 3, name: 'Zorblax acquisition' });
    expect((await keySees()).all).toEqual([expect.objectContaining({ id, version: 3, status: 'published' })]);
  }, 120_000);

  it('refuses a status other than `published` from a key (400 naming it), and lets staff filter by any', async () => {
    const res = await runOperation(key, `{ contents(${SCOPE}, status: modified) { data { id } } }`);
    expect(res.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_REQUEST', details: { parameter: 'status' } });
    const staff = await exec(admin, `{ contents(${SCOPE}, status: modified) { data { id } } }`);
    expect(staff.contents.data.length).toBeGreaterThan(0);
  });

  it('backfills entries published before the projection existed', async () => {
    const conn = db.orm.em.getConnection();
    const before = await conn.execute(`select * from "published_content" order by "id"`);
    expect(before.length).toBeGreaterThan(0);
    await conn.execute(`delete from "published_content"`);
    // The migration's backfill statement (the trigger's refresh, once per visible entry).
    await conn.execute(
      `select "refresh_published_content"(c."id") from "content" c where c."last_published_version" is not null and c."status" in ('published', 'modified')`,
    );
    expect(await conn.execute(`select * from "published_content" order by "id"`)).toEqual(before);
  });
});
