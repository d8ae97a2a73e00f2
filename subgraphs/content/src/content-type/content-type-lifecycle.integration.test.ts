import { loadConfig } from '@cp/config';
import { openTestDatabase, type TestDatabase } from '@cp/db/testing';
import { adminPrincipal, fixedProjects, runOperation, type RunOptions } from '@cp/graphql/testing';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildContentSubgraph, contentDatabase } from '../index';

const FIELDS = 'id name status version lastPublishedVersion packageVersion schema';
const op = (name: string, extra = '') =>
  `mutation($id: ID!) { ${name}(organizationId: "o", projectId: "p", id: $id${extra}) { ${FIELDS} } }`;

describe.each(['postgres', 'pglite'] as const)('content type lifecycle on %s', (kind) => {
  let db: TestDatabase;
  let run: RunOptions;
  let id: string;
  const exec = async (source: string, variables: Record<string, unknown> = {}, options: Partial<RunOptions> = {}) => {
    const res = await runOperation({ ...run, ...options }, source, variables);
    return { data: res.data as any, error: res.errors?.[0]?.extensions as { code: string; details: any } | undefined };
  };

  beforeAll(async () => {
    db = await openTestDatabase(kind, [contentDatabase]);
    run = {
      schema: (await buildContentSubgraph({ config: loadConfig({ DATA_DIR: tmpdir() }), secret: new Uint8Array(32) }))
        .schema,
      em: db.orm.em,
      principal: adminPrincipal('o', 'u1'),
      projects: fixedProjects(['o', 'p']),
    };
    id = (
      await exec(
        `mutation { createContentType(organizationId: "o", projectId: "p", input: { name: "Page", schema: { type: "object" } }) { id } }`,
      )
    ).data.createContentType.id;
  });
  afterAll(() => db?.destroy());

  it('publishes version 1 pinning 0.0.0 before any package, then refuses to publish again (nothing changed)', async () => {
    expect((await exec(op('publishContentType'), { id })).data.publishContentType).toMatchObject({
      status: 'published',
      version: 1,
      lastPublishedVersion: 1,
      packageVersion: '0.0.0',
    });
    expect((await exec(op('publishContentType'), { id })).error).toMatchObject({
      code: 'INVALID_STATUS_TRANSITION',
      details: { currentStatus: 'published', requestedStatus: 'published' },
    });
  });

  it('edits into a working copy that API keys never see; discard restores the published version', async () => {
    const edit = `mutation($id: ID!) { updateContentType(organizationId: "o", projectId: "p", id: $id, input: { name: "Page v2", schema: { type: "object", required: ["x"] } }) { ${FIELDS} } }`;
    expect((await exec(edit, { id })).data.updateContentType).toMatchObject({
      status: 'modified',
      version: null,
      lastPublishedVersion: 1,
      name: 'Page v2',
    });
    const key = {
      principal: {
        kind: 'apiKey' as const,
        keyId: 'k',
        organizationId: 'o',
        projectId: 'p',
        scope: 'published' as const,
      },
    };
    const seen = (
      await exec(
        `query($id: ID!) { contentType(organizationId: "o", projectId: "p", id: $id) { ${FIELDS} } }`,
        { id },
        key,
      )
    ).data.contentType;
    expect(seen).toMatchObject({ name: 'Page', status: 'published', version: 1 });
    expect((await exec(op('discardContentType'), { id })).data.discardContentType).toMatchObject({
      name: 'Page',
      status: 'published',
      version: 1,
    });
    expect((await exec(op('discardContentType'), { id })).error?.code).toBe('INVALID_STATUS_TRANSITION');
  });

  it('gives concurrent publishes consecutive versions, never two equal ones', async () => {
    const edit = `mutation($id: ID!, $n: String!) { updateContentType(organizationId: "o", projectId: "p", id: $id, input: { description: $n }) { id } }`;
    await exec(edit, { id, n: 'a' });
    const results = await Promise.all(Array.from({ length: 4 }, () => exec(op('publishContentType'), { id })));
    expect(results.filter((r) => r.data?.publishContentType).map((r) => r.data.publishContentType.version)).toEqual([
      2,
    ]);
    expect(results.filter((r) => r.error).every((r) => r.error!.code === 'INVALID_STATUS_TRANSITION')).toBe(true);
    const versions = (
      await exec(
        `query($id: ID!) { contentTypeVersions(organizationId: "o", projectId: "p", id: $id) { data { version status content } } }`,
        { id },
      )
    ).data.contentTypeVersions.data;
    expect(versions.map((v: any) => v.version)).toEqual([2, 1]);
    expect(versions[1]).toMatchObject({ status: 'published', content: { name: 'Page' } });
  });

  it('rolls back, unpublishes, deletes and restores per the state table, with events', async () => {
    expect(
      (await exec(op('rollbackContentType', ', input: { version: 1 }'), { id })).data.rollbackContentType,
    ).toMatchObject({ status: 'modified', version: null, name: 'Page' });
    expect((await exec(op('publishContentType'), { id })).data.publishContentType.version).toBe(3);
    expect((await exec(op('unpublishContentType'), { id })).data.unpublishContentType).toMatchObject({
      status: 'unpublished',
      version: 3,
    });
    expect((await exec(op('deleteContentType'), { id })).data.deleteContentType.status).toBe('deleted');
    expect((await exec(op('restoreContentType'), { id })).data.restoreContentType).toMatchObject({
      status: 'modified',
      version: null,
    });
    const status = await exec(op('setContentTypeStatus', ', input: { status: "archived" }'), { id });
    expect(status.error).toMatchObject({ code: 'INVALID_STATUS' });
    expect(
      (await exec(op('setContentTypeStatus', ', input: { status: "published" }'), { id })).data.setContentTypeStatus
        .version,
    ).toBe(4);
    const events = await db.orm.em
      .getConnection()
      .execute(`select type, published from event where resource_id = ? order by occurred_at`, [id]);
    expect(events.filter((e: any) => e.type === 'content-types.published').every((e: any) => e.published)).toBe(true);
    expect(events.map((e: any) => e.type)).toContain('content-types.rolledBack');
  });

  it('lets the database itself refuse to change or delete a published version', async () => {
    const conn = db.orm.em.getConnection();
    await expect(
      conn.execute(`update content_type_version set package_version = '9.9.9' where content_type_id = ?`, [id]),
    ).rejects.toThrow(/immutable/);
    await expect(conn.execute(`delete from content_type_version where content_type_id = ?`, [id])).rejects.toThrow(
      /immutable/,
    );
    const rows = await conn.execute(`select count(*)::int as n from content_type_version where content_type_id = ?`, [
      id,
    ]);
    expect(rows[0].n).toBeGreaterThan(0);
  });
});
