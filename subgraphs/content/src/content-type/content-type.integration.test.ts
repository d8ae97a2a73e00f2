import { loadConfig } from '@cp/config';
import { openTestDatabase, type TestDatabase } from '@cp/db/testing';
import { tmpdir } from 'node:os';
import { adminPrincipal, fixedProjects, runOperation, type RunOptions } from '@cp/graphql/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildContentSubgraph, contentDatabase } from '../index';

const CREATE = `mutation($o: ID!, $p: ID!, $input: CreateContentTypeInput!) {
  createContentType(organizationId: $o, projectId: $p, input: $input) { id name status version packageVersion schema createdBy { id } }
}`;
const LIST = `query($o: ID!, $p: ID!, $limit: Int, $lastKey: String) {
  contentTypes(organizationId: $o, projectId: $p, limit: $limit, lastKey: $lastKey) { data { id name } pagination { lastKey } }
}`;
const schema = { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] };

describe.each(['postgres', 'pglite'] as const)('content types on %s', (kind) => {
  let db: TestDatabase;
  let run: RunOptions;
  const exec = (source: string, variables: Record<string, unknown>, options: Partial<RunOptions> = {}) =>
    runOperation({ ...run, ...options }, source, variables);

  beforeAll(async () => {
    db = await openTestDatabase(kind, [contentDatabase]);
    run = {
      schema: (await buildContentSubgraph({ config: loadConfig({ DATA_DIR: tmpdir() }), secret: new Uint8Array(32) }))
        .schema,
      em: db.orm.em,
      principal: adminPrincipal('org-a', 'user-a'),
      projects: fixedProjects(['org-a', 'p1'], ['org-b', 'p2']),
    };
  });
  afterAll(() => db?.destroy());

  it('creates a draft type with the event in the same transaction', async () => {
    const res = await exec(CREATE, { o: 'org-a', p: 'p1', input: { name: 'Article', schema } });
    expect(res.errors).toBeUndefined();
    const created = (res.data as any).createContentType;
    expect(created).toMatchObject({
      name: 'Article',
      status: 'draft',
      version: null,
      packageVersion: '0.0.0',
      createdBy: { id: 'user-a' },
    });
    const events = await db.orm.em
      .getConnection()
      .execute('select type, resource_id, project_id, actor_id from event where resource_id = ?', [created.id]);
    expect(events).toEqual([
      { type: 'content-types.created', resource_id: created.id, project_id: 'p1', actor_id: 'user-a' },
    ]);
  });

  it('answers NAME_TAKEN for a duplicate name and writes nothing', async () => {
    const before = await db.orm.em.getConnection().execute('select count(*)::int as n from event');
    const res = await exec(CREATE, { o: 'org-a', p: 'p1', input: { name: 'Article', schema } });
    expect(res.errors?.[0].extensions?.code).toBe('NAME_TAKEN');
    const after = await db.orm.em.getConnection().execute('select count(*)::int as n from event');
    expect(after[0].n).toBe(before[0].n);
  });

  it('refuses a schema that is not JSON Schema with VALIDATION_FAILED and paths', async () => {
    const res = await exec(CREATE, { o: 'org-a', p: 'p1', input: { name: 'Bad', schema: { type: 'nonsense' } } });
    expect(res.errors?.[0].extensions?.code).toBe('VALIDATION_FAILED');
    expect((res.errors?.[0].extensions?.details as any).errors[0].path).toMatch(/^\/schema/);
  });

  it('pages with an opaque cursor, newest first, and rejects a tampered one', async () => {
    for (const name of ['T1', 'T2', 'T3', 'T4']) await exec(CREATE, { o: 'org-a', p: 'p1', input: { name, schema } });
    const first = (await exec(LIST, { o: 'org-a', p: 'p1', limit: 2 })).data as any;
    expect(first.contentTypes.data.map((t: any) => t.name)).toEqual(['T4', 'T3']);
    const lastKey = first.contentTypes.pagination.lastKey;
    expect(lastKey).toEqual(expect.any(String));
    const second = (await exec(LIST, { o: 'org-a', p: 'p1', limit: 2, lastKey })).data as any;
    expect(second.contentTypes.data.map((t: any) => t.name)).toEqual(['T2', 'T1']);
    const third = (await exec(LIST, { o: 'org-a', p: 'p1', limit: 2, lastKey: second.contentTypes.pagination.lastKey }))
      .data as any;
    expect(third.contentTypes).toEqual({
      data: [{ id: expect.any(String), name: 'Article' }],
      pagination: { lastKey: null },
    });

    const tampered = await exec(LIST, { o: 'org-a', p: 'p1', lastKey: `x${lastKey}` });
    expect(tampered.errors?.[0].extensions).toMatchObject({ code: 'BAD_REQUEST', details: { parameter: 'lastKey' } });
    const tooMany = await exec(LIST, { o: 'org-a', p: 'p1', limit: 101 });
    expect(tooMany.errors?.[0].extensions).toMatchObject({ code: 'BAD_REQUEST', details: { parameter: 'limit' } });
  });

  it('keeps tenants apart: another organization sees NOT_FOUND, never the data', async () => {
    const outsider = { principal: adminPrincipal('org-b', 'user-b') };
    const list = await exec(LIST, { o: 'org-a', p: 'p1' }, outsider);
    expect(list.errors?.[0].extensions?.code).toBe('NOT_FOUND');
    const own = await exec(LIST, { o: 'org-b', p: 'p2' }, outsider);
    expect((own.data as any).contentTypes.data).toEqual([]);
    const unknownProject = await exec(LIST, { o: 'org-a', p: 'nope' });
    expect(unknownProject.errors?.[0].extensions?.code).toBe('NOT_FOUND');
  });

  it('updates only the members given; a published type becomes modified', async () => {
    const created = (
      (await exec(CREATE, { o: 'org-a', p: 'p1', input: { name: 'Page', description: 'd', schema } })).data as any
    ).createContentType;
    await db.orm.em
      .getConnection()
      .execute(`update content_type set status = 'published', version = 1, last_published_version = 1 where id = ?`, [
        created.id,
      ]);
    const res = await exec(
      `mutation($o: ID!, $p: ID!, $id: ID!, $input: UpdateContentTypeInput!) {
        updateContentType(organizationId: $o, projectId: $p, id: $id, input: $input) { name description status version lastPublishedVersion }
      }`,
      { o: 'org-a', p: 'p1', id: created.id, input: { name: 'Landing page' } },
    );
    expect(res.errors).toBeUndefined();
    expect((res.data as any).updateContentType).toEqual({
      name: 'Landing page',
      description: 'd',
      status: 'modified',
      version: null,
      lastPublishedVersion: 1,
    });
  });

  it('requires the permission flag: FORBIDDEN names resource and action', async () => {
    const readOnly = {
      principal: {
        kind: 'user' as const,
        userId: 'u',
        organizationId: 'org-a',
        permissions: { contentTypes: { read: true } },
      },
    };
    const res = await exec(CREATE, { o: 'org-a', p: 'p1', input: { name: 'X', schema } }, readOnly);
    expect(res.errors?.[0].extensions).toMatchObject({
      code: 'FORBIDDEN',
      details: { resource: 'contentTypes', action: 'create' },
    });
  });
});
