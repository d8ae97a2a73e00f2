// Black-box: content entries — creation rules, validation, lifecycle, migrate, listing, search, client reads.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { PROJECT } from './support/client';
import { tempDir } from './support/leftovers';
import { useService } from './support/setup';

const app = `/app/v1${PROJECT}`;
const api = `/api/v1${PROJECT}`;
const HERO = `export interface Props {
  /** @minLength 1 */
  title: string;
}
export function metadata() { return { title: 'Hero', description: 'Big title' }; }
export default function render(p: Props, children: string) { return '<h1>' + p.title + '</h1>' + children; }`;
const PAGE = `export function metadata() { return { title: 'Page', description: 'Layout' }; }
export default function layout(x: { children: string }) { return '<main>' + x.children + '</main>'; }`;

/** Imports a compiled entry module in a separate Node process and renders it, as a client would. */
function render(compiled: string): string {
  const file = join(tempDir('cp-entry-'), 'entry.mjs');
  writeFileSync(file, compiled);
  return execFileSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `const m = await import(${JSON.stringify(pathToFileURL(file).href)}); process.stdout.write(m.default());`,
    ],
    { encoding: 'utf8' },
  );
}

describe('content', () => {
  const fx = useService();
  let typeId: string;
  let key: string;
  const call = (method: string, path: string, body?: unknown) => fx.api.call(method, path, { token: fx.token, body });

  beforeAll(async () => {
    const hero = (await call('POST', `${app}/components`, { name: 'Hero', type: 'view', content: HERO })).body;
    const page = (await call('POST', `${app}/components`, { name: 'Page', type: 'layout', content: PAGE })).body;
    await call('POST', `${app}/packages`, {});
    const type = await call('POST', `${app}/content-types`, {
      name: 'Article',
      schema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] },
      componentIdsAllowList: [hero.id],
      layoutComponentId: page.id,
    });
    typeId = type.body.id;
    await call('POST', `${app}/content-types/${typeId}/publish`);
    key = (await call('POST', `${app}/api-keys`, { name: 'reader' })).body.key;
  });

  it('creates a draft on the latest published type version with author, package version and a compiled module', async () => {
    const res = await call('POST', `${app}/content`, {
      typeId,
      name: 'Hello world',
      content: { title: 'Hi', components: [{ type: 'Hero', props: { title: 'Welcome' } }] },
      tags: ['news'],
      metadata: { locale: 'en' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      status: 'draft',
      version: null,
      lastPublishedVersion: null,
      typeVersion: 1,
      packageVersion: '1.0.0',
      isTemplate: false,
      tags: ['news'],
    });
    expect(res.body.metadata).toMatchObject({ locale: 'en', author: expect.any(String) });
    expect(render(res.body.compiled)).toBe('<main><h1>Welcome</h1></main>');
  });

  it('validates the document (422 with JSON pointers), the allow list (INVALID_COMPONENT) and the type (404)', async () => {
    const missing = await call('POST', `${app}/content`, { typeId, name: 'x', content: {} });
    expect(missing.status).toBe(422);
    expect(missing.body.error).toMatchObject({ code: 'VALIDATION_FAILED', details: { errors: [{ path: '/title' }] } });
    const badProps = await call('POST', `${app}/content`, {
      typeId,
      name: 'x',
      content: { title: 't', components: [{ type: 'Hero', props: { title: '' } }] },
    });
    expect(badProps.body.error.details.errors).toEqual([
      { path: '/components/0/props/title', message: expect.any(String) },
    ]);
    const notAllowed = await call('POST', `${app}/content`, {
      typeId,
      name: 'x',
      content: { title: 't', components: [{ type: 'Page', props: {} }] },
    });
    expect(notAllowed.status).toBe(422);
    expect(notAllowed.body.error).toMatchObject({
      code: 'INVALID_COMPONENT',
      details: { componentType: 'Page', allowedTypes: ['Hero'] },
    });
    const unknown = await call('POST', `${app}/content`, { typeId: 'nope', name: 'x', content: {} });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ code: 'CONTENT_TYPE_NOT_FOUND', details: { typeId: 'nope' } });
  });

  it('runs the lifecycle; clients see the published version while a working copy exists', async () => {
    const id = (await call('POST', `${app}/content`, { typeId, name: 'Lifecycle', content: { title: 'v1' } })).body.id;
    expect((await fx.api.call('GET', `${api}/content/${id}/resolved`, { apiKey: key })).status).toBe(404);
    expect((await call('POST', `${app}/content/${id}/publish`)).body).toMatchObject({
      status: 'published',
      version: 1,
      lastPublishedVersion: 1,
    });
    expect((await call('PUT', `${app}/content/${id}`, { content: { title: 'v2 draft' } })).body).toMatchObject({
      status: 'modified',
      version: null,
    });
    const resolved = await fx.api.call('GET', `${api}/content/${id}/resolved`, { apiKey: key });
    expect(resolved.body).toMatchObject({
      status: 'published',
      version: 1,
      content: { title: 'v1' },
      contentType: { version: 1 },
    });
    const listed = await fx.api.call('GET', `${api}/content?limit=100`, { apiKey: key });
    const item = listed.body.data.find((e: { id: string }) => e.id === id);
    expect(item.content).toEqual({ title: 'v1' });
    // REST lists leave out `compiled` (returned on create and migrate, one entry's module via /resolved).
    expect(item).not.toHaveProperty('compiled');
    expect(resolved.body.compiled).toEqual(expect.stringContaining('v1'));
    // GraphQL callers who select it get the published version's module, not the working copy's.
    const query = `{ contents(organizationId: "default", projectId: "default", limit: 100) { data { id compiled } } }`;
    const selected = (await fx.api.graphql(query, {}, { apiKey: key })).body.data.contents.data.find(
      (e: { id: string }) => e.id === id,
    );
    expect(selected.compiled).toBe(resolved.body.compiled);
    const working = (await fx.api.graphql(query, {}, { token: fx.token })).body.data.contents.data.find(
      (e: { id: string }) => e.id === id,
    );
    expect(working.compiled).toEqual(expect.stringContaining('v2 draft'));

    const publishes = await Promise.all(Array.from({ length: 5 }, () => call('POST', `${app}/content/${id}/publish`)));
    expect(publishes.filter((r) => r.status === 200).map((r) => r.body.version)).toEqual([2]);
    expect(publishes.filter((r) => r.status === 409)).toHaveLength(4);

    expect((await call('POST', `${app}/content/${id}/discard`)).body.error.details).toEqual({
      currentStatus: 'published',
      requestedStatus: 'published',
    });
    expect((await call('POST', `${app}/content/${id}/rollback`, { version: 1 })).body).toMatchObject({
      status: 'modified',
      content: { title: 'v1' },
    });
    expect((await call('POST', `${app}/content/${id}/discard`)).body).toMatchObject({
      status: 'published',
      version: 2,
      content: { title: 'v2 draft' },
    });
    const versions = await call('GET', `${app}/content/${id}/versions`);
    expect(versions.body.data.map((v: { version: number }) => v.version)).toEqual([2, 1]);
    // `content` is the document as published (the entry's own `content` then); the other frozen members stand beside it.
    expect(versions.body.data[1]).toMatchObject({
      status: 'published',
      content: { title: 'v1' },
      name: expect.any(String),
      tags: [],
      typeVersion: 1,
      createdBy: expect.any(String),
    });
    expect(versions.body.data[0].content).toEqual((await call('GET', `${app}/content/${id}`)).body.content);
    expect((await call('POST', `${app}/content/${id}/unpublish`)).body.status).toBe('unpublished');
    expect((await fx.api.call('GET', `${api}/content/${id}/resolved`, { apiKey: key })).status).toBe(404);
    expect((await call('DELETE', `${app}/content/${id}`)).body.status).toBe('deleted');
    expect((await call('POST', `${app}/content/${id}/restore`)).body).toMatchObject({
      status: 'modified',
      version: null,
    });
  });

  it('migrates to a newer type version under the spec rules', async () => {
    const id = (await call('POST', `${app}/content`, { typeId, name: 'Migrating', content: { title: 't' } })).body.id;
    await call('POST', `${app}/content/${id}/publish`);
    await call('PUT', `${app}/content-types/${typeId}`, {
      schema: {
        type: 'object',
        properties: { title: { type: 'string' }, sub: { type: 'string' } },
        required: ['title'],
      },
    });
    await call('POST', `${app}/content-types/${typeId}/publish`);
    const migrated = await call('POST', `${app}/content/${id}/migrate`, { targetTypeVersion: 2 });
    expect(migrated.body).toMatchObject({ typeVersion: 2, packageVersion: '1.0.0' });
    // Clients keep the published version and the type version it was published on until the next publish.
    const resolved = async () => (await fx.api.call('GET', `${api}/content/${id}/resolved`, { apiKey: key })).body;
    expect(await resolved()).toMatchObject({ version: 1, typeVersion: 1, contentType: { version: 1 } });
    await call('POST', `${app}/content/${id}/publish`);
    expect(await resolved()).toMatchObject({
      version: 2,
      typeVersion: 2,
      contentType: { version: 2, content: { schema: { required: ['title'] } } },
    });
    expect((await call('POST', `${app}/content/${id}/migrate`, { targetTypeVersion: 1 })).body.error).toMatchObject({
      code: 'INVALID_MIGRATION',
      details: { currentVersion: 2, targetVersion: 1 },
    });
    expect((await call('POST', `${app}/content/${id}/migrate`, { targetTypeVersion: 9 })).body.error.code).toBe(
      'TYPE_VERSION_NOT_FOUND',
    );
    expect((await call('POST', `${app}/content/${id}/migrate`, {})).status).toBe(422);
  });

  it('lists with filters and aliases, full-text prefix search, and refuses unknown values with 400', async () => {
    await call('POST', `${app}/content`, {
      typeId,
      name: 'Quantum computing primer',
      content: { title: 'Qubits explained' },
      tags: ['science', 'physics'],
    });
    const byAlias = await call('GET', `${app}/content?type=${typeId}&limit=100`);
    expect(byAlias.body.data.length).toBeGreaterThanOrEqual(4);
    expect((await call('GET', `${app}/content?search=quant`)).body.data.map((e: { name: string }) => e.name)).toEqual([
      'Quantum computing primer',
    ]);
    expect((await call('GET', `${app}/content?search=qubit`)).body.data).toHaveLength(1);
    // Only stop words: plain prefixes, not nothing. With other words, stop words are dropped as usual.
    await call('POST', `${app}/content`, { typeId, name: 'Theme park guide', content: { title: 'Rides' } });
    expect((await call('GET', `${app}/content?search=the`)).body.data.map((e: { name: string }) => e.name)).toEqual([
      'Theme park guide',
    ]);
    expect(
      (await call('GET', `${app}/content?search=${encodeURIComponent('the quantum')}`)).body.data.map(
        (e: { name: string }) => e.name,
      ),
    ).toEqual(['Quantum computing primer']);
    expect((await call('GET', `${app}/content?tags=science,physics`)).body.data).toHaveLength(1);
    expect(
      (await call('GET', `${app}/content?status=draft&limit=100`)).body.data.every(
        (e: { status: string }) => e.status === 'draft',
      ),
    ).toBe(true);
    const asc = (await call('GET', `${app}/content?sort=updatedAt:asc&limit=100`)).body.data.map(
      (e: { updatedAt: string }) => e.updatedAt,
    );
    expect(asc).toEqual([...asc].sort());
    const bad = await call('GET', `${app}/content?status=archived`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.parameter).toBe('status');
    // An API key sees published content only: `published` is a no-op, any other status a 400 naming the parameter.
    const asKey = (query: string) => fx.api.call('GET', `${api}/content?${query}`, { apiKey: key });
    expect((await asKey('status=published&limit=100')).body.data).toEqual((await asKey('limit=100')).body.data);
    for (const status of ['modified', 'draft', 'unpublished', 'deleted']) {
      const refused = await asKey(`status=${status}`);
      expect(refused.status, status).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'BAD_REQUEST', details: { parameter: 'status' } });
    }
  });

  it('treats POST …/content without typeId/name/content as a search', async () => {
    const all = await call('POST', `${app}/content`, {});
    expect(all.status).toBe(200);
    expect(all.body.pagination).toEqual({ page: 1, limit: 20, total: expect.any(Number) });
    const like = await call('POST', `${app}/content`, {
      filter: { name: { like: 'Quantum' }, tags: { any: ['physics', 'x'] } },
      limit: 5,
    });
    expect(like.body.data.map((e: { name: string }) => e.name)).toEqual(['Quantum computing primer']);
    const sorted = await call('POST', `${app}/content`, {
      sort: [{ field: 'updatedAt', order: 'asc' }],
      page: 1,
      limit: 2,
    });
    expect(sorted.body.pagination).toMatchObject({ page: 1, limit: 2 });
    const badOp = await call('POST', `${app}/content`, { filter: { name: { regex: 'x' } } });
    expect(badOp.status).toBe(400);
    expect(badOp.body.error.details).toMatchObject({ field: 'name', operator: 'regex' });
    expect((await call('POST', `${app}/content`, { filter: { color: { eq: 'red' } } })).status).toBe(400);
  });

  it('answers an exact search total on every page, past the end too, in REST and GraphQL', async () => {
    for (let i = 1; i <= 7; i++)
      await call('POST', `${app}/content`, { typeId, name: `Totals ${i}`, content: { title: 't' } });
    const search = (body: Record<string, unknown>) =>
      call('POST', `${app}/content`, { filter: { name: { like: 'Totals' } }, ...body });
    for (const [page, size] of [
      [1, 3],
      [2, 3],
      [3, 1],
      [4, 0],
      [9, 0],
    ]) {
      const res = await search({ page, limit: 3 });
      expect({ page, size: res.body.data.length, pagination: res.body.pagination }).toEqual({
        page,
        size,
        pagination: { page, limit: 3, total: 7 },
      });
    }
    expect((await search({ limit: 7 })).body.pagination.total).toBe(7);
    // Full-text `search` is a raw condition: the count after a full page must still see it.
    for (const page of [1, 3, 4]) {
      const text = await call('POST', `${app}/content`, { search: 'totals', page, limit: 3 });
      expect([page, text.status, text.body.pagination?.total]).toEqual([page, 200, 7]);
    }
    expect((await search({ filter: { name: { like: 'Totals 7' } } })).body.pagination).toEqual({
      page: 1,
      limit: 20,
      total: 1,
    });
    expect((await search({ filter: { name: { like: 'No such name' } } })).body).toEqual({
      data: [],
      pagination: { page: 1, limit: 20, total: 0 },
    });
    // `like` without `%` is a literal substring (`_` is no wildcard); with `%` it is a pattern, whose `_` is one.
    expect((await search({ filter: { name: { like: 'Totals_1' } } })).body.pagination.total).toBe(0);
    expect((await search({ filter: { name: { like: '%Totals_1' } } })).body.pagination.total).toBe(1);
    const lone = await search({ filter: { name: { like: 'Totals%\\' } } });
    expect([lone.status, lone.body.error.code, lone.body.error.details]).toEqual([
      400,
      'BAD_REQUEST',
      { field: 'name', operator: 'like' },
    ]);
    const gql = await fx.api.graphql(
      `query($input: SearchContentInput) { searchContent(organizationId: "default", projectId: "default", input: $input) { data { name } pagination { page limit total } } }`,
      { input: { filter: { name: { like: 'Totals' } }, page: 3, limit: 3 } },
      { token: fx.token },
    );
    expect(gql.body.data.searchContent).toEqual({
      data: [{ name: expect.stringMatching(/^Totals/) }],
      pagination: { page: 3, limit: 3, total: 7 },
    });
    // API keys search the working copies' fields but get the published view, on later pages (offset) too.
    const entry = (await search({ filter: { name: { like: 'Totals 3' } } })).body.data[0];
    await call('POST', `${app}/content/${entry.id}/publish`);
    await call('PUT', `${app}/content/${entry.id}`, { content: { title: 'draft change' } });
    await call('PUT', `${app}/content/${(await search({ filter: { name: { like: 'Totals 5' } } })).body.data[0].id}`, {
      content: { title: 'x' },
    });
    const asKey = (body: Record<string, unknown>) =>
      fx.api.call('POST', `${api}/content/search`, {
        apiKey: key,
        body: { filter: { name: { like: 'Totals' } }, ...body },
      });
    for (const [page, limit] of [
      [1, 20],
      [1, 1],
      [2, 1],
    ]) {
      const res = await asKey({ page, limit });
      const expected = page === 1 ? [{ id: entry.id, status: 'published', version: 1, content: { title: 't' } }] : [];
      expect({
        page,
        limit,
        data: res.body.data.map((e: Record<string, unknown>) => ({
          id: e.id,
          status: e.status,
          version: e.version,
          content: e.content,
        })),
        pagination: res.body.pagination,
      }).toEqual({ page, limit, data: expected, pagination: { page, limit, total: 1 } });
    }
    // The largest page an Int allows is a plain empty page; past it, the argument's type refuses it (no database error).
    const last = await search({ page: 2 ** 31 - 1, limit: 100 });
    expect([last.status, last.body.data, last.body.pagination.total]).toEqual([200, [], 7]);
    const far = await search({ page: 1e20 });
    expect([far.status, far.body.error?.code]).toEqual([422, 'VALIDATION_FAILED']);
  });

  it('keeps type schemas apart: a reused $id is no conflict, and patterns run in linear time (RE2)', async () => {
    const schema = {
      $id: 'urn:example:shared',
      type: 'object',
      properties: { code: { type: 'string', pattern: '^(a+)+$' } },
    };
    const first = await call('POST', `${app}/content-types`, { name: 'Patterned', schema });
    const second = await call('POST', `${app}/content-types`, { name: 'Patterned too', schema });
    expect([first.status, second.status]).toEqual([201, 201]);
    expect((await call('PUT', `${app}/content-types/${first.body.id}`, { schema })).status).toBe(200);
    await call('POST', `${app}/content-types/${first.body.id}/publish`);
    // 40 a's and a '!' backtrack 2^40 times on a backtracking engine; RE2 answers at once.
    const hostile = await call('POST', `${app}/content`, {
      typeId: first.body.id,
      name: 'Hostile',
      content: { code: `${'a'.repeat(40)}!` },
    });
    expect(hostile.status, JSON.stringify(hostile.body)).toBe(422);
    expect(hostile.body.error.details.errors[0].path).toBe('/code');
    expect(
      (await call('POST', `${app}/content`, { typeId: first.body.id, name: 'Fine', content: { code: 'aaa' } })).status,
    ).toBe(201);
    // Lookaround has no linear-time form: such a pattern makes the schema invalid.
    const lookahead = await call('POST', `${app}/content-types`, {
      name: 'Lookahead',
      schema: { type: 'object', properties: { x: { type: 'string', pattern: '(?=a)' } } },
    });
    expect([lookahead.status, lookahead.body.error.code]).toEqual([422, 'VALIDATION_FAILED']);
  });

  it('answers 409 NAME_TAKEN when a discard would bring back a name taken since; a rollback brings back no deleted folder', async () => {
    const type = (await call('POST', `${app}/content-types`, { name: 'Before', schema: { type: 'object' } })).body;
    await call('POST', `${app}/content-types/${type.id}/publish`);
    await call('PUT', `${app}/content-types/${type.id}`, { name: 'After' });
    await call('POST', `${app}/content-types`, { name: 'Before', schema: { type: 'object' } });
    const discarded = await call('POST', `${app}/content-types/${type.id}/discard`);
    expect([discarded.status, discarded.body.error?.code]).toEqual([409, 'NAME_TAKEN']);
    expect((await call('GET', `${app}/content-types/${type.id}`)).body.name).toBe('After');
    const component = (await call('POST', `${app}/components`, { name: 'Old name', type: 'view', content: HERO })).body;
    await call('POST', `${app}/packages`, {});
    await call('PUT', `${app}/components/${component.id}`, { name: 'New name' });
    await call('POST', `${app}/components`, { name: 'Old name', type: 'view', content: HERO });
    const reverted = await call('POST', `${app}/components/${component.id}/discard`);
    expect([reverted.status, reverted.body.error?.code]).toEqual([409, 'NAME_TAKEN']);

    const folder = (await call('POST', `${app}/folders`, { name: 'Gone soon' })).body;
    const entry = (
      await call('POST', `${app}/content`, {
        typeId,
        name: 'Filed',
        content: { title: 'x' },
        folderId: folder.id,
        tags: ['kept-tag'],
      })
    ).body;
    await call('POST', `${app}/content/${entry.id}/publish`);
    await call('DELETE', `${app}/folders/${folder.id}?recursive=true`);
    const tag = (await call('GET', `${app}/tags?search=kept-tag`)).body.data[0];
    await call('DELETE', `${app}/tags/${tag.id}`);
    const back = await call('POST', `${app}/content/${entry.id}/rollback`, { version: 1 });
    expect([back.status, back.body.folderId, back.body.tags]).toEqual([200, null, ['kept-tag']]);
    expect((await call('GET', `${app}/tags?search=kept-tag`)).body.pagination.total).toBe(1);
  });

  it('validates content type allow lists with the spec details', async () => {
    const res = await call('PUT', `${app}/content-types/${typeId}`, {
      componentIdsAllowList: [
        { id: 'g1', name: 'Heroes', componentIds: ['nope'] },
        { id: 'g1', name: 'Again', componentIds: [] },
        { name: 'No id' },
      ],
    });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: {
        duplicateGroupIds: ['g1'],
        invalidComponentIds: ['nope'],
        emptyGroups: ['g1'],
        missingFields: [{ groupIndex: 2, missingFields: ['id', 'componentIds'] }],
      },
    });
  });

  it('answers GraphQL with the same rules', async () => {
    const res = await fx.api.graphql(
      `query($t: ID) { contents(organizationId: "default", projectId: "default", typeId: $t, limit: 100) { data { name status createdBy { email } } } }`,
      { t: typeId },
      { token: fx.token },
    );
    expect(res.body.data.contents.data[0].createdBy.email).toBe('admin@example.com');
    const bad = await fx.api.graphql(
      `mutation { createContent(organizationId: "default", projectId: "default", input: { typeId: "nope", name: "x", content: {} }) { id } }`,
      {},
      { token: fx.token },
    );
    expect(bad.body.errors?.[0].extensions).toMatchObject({ code: 'CONTENT_TYPE_NOT_FOUND' });
  });
});
