// Black-box: tags, folders and saved searches.
import { beforeAll, describe, expect, it } from 'vitest';
import { PROJECT } from './support/client';
import { useService } from './support/setup';

const app = `/app/v1${PROJECT}`;
const api = `/api/v1${PROJECT}`;

describe('tags, folders and saved searches', () => {
  const fx = useService();
  const call = (method: string, path: string, body?: unknown) => fx.api.call(method, path, { token: fx.token, body });
  let typeId: string;
  let key: string;

  beforeAll(async () => {
    typeId = (await call('POST', `${app}/content-types`, { name: 'Note', schema: { type: 'object' } })).body.id;
    await call('POST', `${app}/content-types/${typeId}/publish`);
    key = (await call('POST', `${app}/api-keys`, { name: 'r' })).body.key;
  });

  it('manages tags; an unknown tag name on an entry creates the tag', async () => {
    const red = await call('POST', `${app}/tags`, { name: 'red', color: '#f00' });
    expect(red.status).toBe(201);
    expect(red.body).toMatchObject({ name: 'red', color: '#f00' });
    expect((await call('POST', `${app}/tags`, { name: 'red' })).body.error.code).toBe('NAME_TAKEN');
    const tagged = await call('POST', `${app}/content`, {
      typeId,
      name: 'tagged',
      content: {},
      tags: ['red', 'fresh'],
    });
    const list = await call('GET', `${app}/tags?search=fre`);
    expect(list.body).toMatchObject({ data: [{ name: 'fresh' }], pagination: { page: 1, limit: 20, total: 1 } });
    // A key sees the tags published entries carry: none while the entry is a draft, both once it is published.
    const keyTags = async () => (await fx.api.call('GET', `${api}/tags`, { apiKey: key })).body.pagination.total;
    expect(await keyTags()).toBe(0);
    expect((await fx.api.call('GET', `${api}/tags/${list.body.data[0].id}`, { apiKey: key })).status).toBe(404);
    await call('POST', `${app}/content/${tagged.body.id}/publish`);
    expect(await keyTags()).toBe(2);
    expect((await call('PUT', `${app}/tags/${red.body.id}`, { color: '#0f0' })).body).toMatchObject({
      name: 'red',
      color: '#0f0',
    });
    expect((await call('DELETE', `${app}/tags/${red.body.id}`)).status).toBe(200);
    // Tag records keep names exactly, control characters and quotes included.
    const odd = ['line\nbreak', 'tab\there', 'quote"d', 'back\\slash', 'ctl\u0001x'];
    await call('POST', `${app}/content`, { typeId, name: 'odd tags', content: {}, tags: odd });
    const names = (await call('GET', `${app}/tags?limit=100`)).body.data.map((t: { name: string }) => t.name);
    expect(names).toEqual(expect.arrayContaining(odd));
  });

  it('refuses saved searches the search itself would refuse (400 naming the member)', async () => {
    for (const query of [
      { search: { $ne: 1 } },
      { query: 123 },
      { sort: 'x' },
      { limit: 1000 },
      { search: Array.from({ length: 33 }, (_, i) => `w${i}`).join(' ') },
    ]) {
      const res = await call('POST', `${app}/saved-searches`, { name: `bad ${JSON.stringify(query)}`, query });
      expect([JSON.stringify(query), res.status, res.body.error?.code]).toEqual([
        JSON.stringify(query),
        400,
        'BAD_REQUEST',
      ]);
    }
    // A full-text search of many words is refused up front (PostgreSQL's to_tsquery of thousands of terms never returns).
    const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');
    expect((await call('POST', `${app}/content/search`, { search: words(32) })).status).toBe(200);
    const many = await call('POST', `${app}/content/search`, { search: words(8000) });
    expect([many.status, many.body.error.details]).toEqual([400, { parameter: 'search', limit: 1000 }]);
    const long = await call('GET', `${app}/content?search=${encodeURIComponent(words(33))}`);
    expect([long.status, long.body.error.details]).toEqual([400, { parameter: 'search', limit: 32 }]);
  });

  it('nests folders with paths, and refuses to delete a non-empty one unless recursive', async () => {
    const root = (await call('POST', `${app}/folders`, { name: 'marketing' })).body;
    const child = (await call('POST', `${app}/folders`, { name: '2026', parentId: root.id })).body;
    expect(child).toMatchObject({ parentId: root.id, path: '/marketing/2026' });
    const entry = (await call('POST', `${app}/content`, { typeId, name: 'filed', content: {}, folderId: child.id }))
      .body;
    expect(
      (await call('GET', `${app}/content?folderId=${child.id}`)).body.data.map((e: { id: string }) => e.id),
    ).toEqual([entry.id]);
    expect((await call('PUT', `${app}/folders/${root.id}`, { parentId: child.id })).status).toBe(422);
    expect((await call('PUT', `${app}/folders/${root.id}`, { name: 'brand' })).status).toBe(200);
    expect((await call('GET', `${app}/folders/${child.id}`)).body.path).toBe('/brand/2026');

    const refused = await call('DELETE', `${app}/folders/${root.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('FOLDER_NOT_EMPTY');
    expect((await call('DELETE', `${app}/folders/${root.id}?recursive=true`)).status).toBe(200);
    expect((await call('GET', `${app}/content/${entry.id}`)).body.folderId).toBeNull();
    expect((await call('GET', `${app}/folders/${child.id}`)).status).toBe(404);
  });

  it('keeps a folder subtree to its own children, whatever characters the names hold', async () => {
    const folder = async (name: string, parentId?: string) =>
      (await call('POST', `${app}/folders`, { name, ...(parentId ? { parentId } : {}) })).body;
    const target = await folder('a_b');
    const below = await folder('a_b child', target.id);
    // Folders whose paths a `LIKE '/a_b/%'` (or a `/`-prefix test) would wrongly take for the target's children.
    const lookalike = await folder('axb');
    const lookalikeChild = await folder('axb child', lookalike.id);
    const slash = await folder('a_b/x');
    const percent = await folder('%');
    const percentChild = await folder('% child', percent.id);
    expect(slash.path).toBe('/a_b/x');
    const refused = await call('DELETE', `${app}/folders/${target.id}`);
    expect(refused.body.error.details).toEqual({ contents: 0, folders: 1 });
    expect((await call('PUT', `${app}/folders/${percent.id}`, { name: 'percent' })).status).toBe(200);
    expect((await call('GET', `${app}/folders/${percentChild.id}`)).body.path).toBe('/percent/% child');
    expect((await call('GET', `${app}/folders/${lookalikeChild.id}`)).body.path).toBe('/axb/axb child');
    expect((await call('DELETE', `${app}/folders/${target.id}?recursive=true`)).status).toBe(200);
    const status = async (f: { id: string }) => (await call('GET', `${app}/folders/${f.id}`)).status;
    expect(
      await Promise.all([target, below, lookalike, lookalikeChild, slash, percent, percentChild].map(status)),
    ).toEqual([404, 404, 200, 200, 200, 200, 200]);
    // `search` on names is a literal substring.
    const found = (await call('GET', `${app}/folders?search=${encodeURIComponent('%')}`)).body.data.map(
      (f: { name: string }) => f.name,
    );
    expect(found).toEqual(['% child']);
  });

  it('saves and executes searches; API keys get published content only', async () => {
    const a = (await call('POST', `${app}/content`, { typeId, name: 'Alpha report', content: {} })).body;
    await call('POST', `${app}/content`, { typeId, name: 'Alpha draft', content: {} });
    await call('POST', `${app}/content/${a.id}/publish`);
    const saved = await call('POST', `${app}/saved-searches`, {
      name: 'alphas',
      query: { filter: { name: { like: 'Alpha' } } },
    });
    expect(saved.status).toBe(201);
    expect(saved.body).toMatchObject({
      name: 'alphas',
      query: { filter: { name: { like: 'Alpha' } } },
      createdBy: expect.any(String),
    });

    const asAdmin = await call('POST', `${app}/saved-searches/${saved.body.id}/execute`, { page: 1, limit: 10 });
    expect(asAdmin.body.pagination).toEqual({ page: 1, limit: 10, total: 2 });
    const asKey = await fx.api.call('POST', `${api}/saved-searches/${saved.body.id}/execute`, {
      apiKey: key,
      body: {},
    });
    expect(asKey.body.data.map((e: { name: string; status: string }) => [e.name, e.status])).toEqual([
      ['Alpha report', 'published'],
    ]);
    expect((await fx.api.call('GET', `${api}/saved-searches`, { apiKey: key })).body.data).toHaveLength(1);

    const bad = await call('POST', `${app}/saved-searches`, { name: 'bad', query: { filter: { nope: { eq: 1 } } } });
    expect(bad.status).toBe(400);
  });
});
