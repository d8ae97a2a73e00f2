// Black-box: references must name records of the same project (422), and publish metadata is server-owned.
import { describe, expect, it } from 'vitest';
import { PROJECT } from './support/client';
import { useService } from './support/setup';

const app = `/app/v1${PROJECT}`;
const LAYOUT = `export function metadata() { return { title: 'Page', description: 'Layout' }; }
export default function layout(x: { children: string }) { return '<main>' + x.children + '</main>'; }`;
const VIEW = `export function metadata() { return { title: 'Card', description: 'View' }; }
export default function card() { return '<div></div>'; }`;

describe('references and server-owned metadata', () => {
  const fx = useService();
  const call = (method: string, path: string, body?: unknown) => fx.api.call(method, path, { token: fx.token, body });
  const userId = () => JSON.parse(Buffer.from(fx.token.split('.')[1], 'base64url').toString()).sub as string;
  const errorPaths = (res: { body: any }) => res.body.error.details.errors.map((e: { path: string }) => e.path);

  it('refuses folders, layouts and templates of another project (or none) with 422, and accepts its own', async () => {
    const other = (await call('POST', '/app/v1/organizations/default/projects', { name: 'Neighbour' })).body;
    const otherApp = `/app/v1/organizations/default/projects/${other.id}`;
    const foreignFolder = (await call('POST', `${otherApp}/folders`, { name: 'theirs' })).body;
    const foreignLayout = (
      await call('POST', `${otherApp}/components`, { name: 'TheirPage', type: 'layout', content: LAYOUT })
    ).body;
    const ownFolder = (await call('POST', `${app}/folders`, { name: 'ours' })).body;
    const ownLayout = (await call('POST', `${app}/components`, { name: 'OurPage', type: 'layout', content: LAYOUT }))
      .body;
    const ownView = (await call('POST', `${app}/components`, { name: 'OurCard', type: 'view', content: VIEW })).body;
    expect([foreignFolder.id, foreignLayout.id, ownFolder.id, ownLayout.id, ownView.id].every(Boolean)).toBe(true);

    const type = (await call('POST', `${app}/content-types`, { name: 'Referencing', schema: { type: 'object' } })).body;
    await call('POST', `${app}/content-types/${type.id}/publish`);
    const foreignType = (
      await call('POST', `${otherApp}/content-types`, { name: 'Theirs', schema: { type: 'object' } })
    ).body;
    await call('POST', `${otherApp}/content-types/${foreignType.id}/publish`);
    const foreignEntry = (
      await call('POST', `${otherApp}/content`, { typeId: foreignType.id, name: 'theirs', content: {} })
    ).body;

    // Content: folderId.
    for (const folderId of [foreignFolder.id, 'no-such-folder']) {
      const res = await call('POST', `${app}/content`, {
        typeId: type.id,
        name: `in ${folderId}`,
        content: {},
        folderId,
      });
      expect(res.status, folderId).toBe(422);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
      expect(errorPaths(res)).toEqual(['/folderId']);
    }
    const entry = await call('POST', `${app}/content`, {
      typeId: type.id,
      name: 'filed',
      content: {},
      folderId: ownFolder.id,
    });
    expect(entry.status).toBe(201);
    const moved = await call('PUT', `${app}/content/${entry.body.id}`, { folderId: foreignFolder.id });
    expect(moved.status).toBe(422);
    expect((await call('GET', `${app}/content/${entry.body.id}`)).body.folderId).toBe(ownFolder.id);

    // Content types: layoutComponentId (a layout of this project) and templateContentIds (entries of this project).
    const refused = await call('POST', `${app}/content-types`, {
      name: 'Leaky',
      schema: { type: 'object' },
      layoutComponentId: foreignLayout.id,
      templateContentIds: [entry.body.id, foreignEntry.id],
    });
    expect(refused.status).toBe(422);
    expect(errorPaths(refused)).toEqual(['/layoutComponentId', '/templateContentIds/1']);
    const viewAsLayout = await call('PUT', `${app}/content-types/${type.id}`, { layoutComponentId: ownView.id });
    expect(viewAsLayout.status).toBe(422);
    expect(viewAsLayout.body.error.details.errors[0]).toMatchObject({
      path: '/layoutComponentId',
      message: 'must be a layout component',
    });
    const fine = await call('PUT', `${app}/content-types/${type.id}`, {
      layoutComponentId: ownLayout.id,
      templateContentIds: [entry.body.id],
    });
    expect(fine.status).toBe(200);
    expect(fine.body).toMatchObject({ layoutComponentId: ownLayout.id, templateContentIds: [entry.body.id] });

    // Assets: folderId on upload and on update; a refused upload stores nothing.
    const upload = async (folderId: string) => {
      const body = new FormData();
      body.append('folderId', folderId);
      body.append('file', new Blob(['hello']), 'hello.txt');
      const res = await fetch(`${fx.service.url}${app}/assets`, {
        method: 'POST',
        headers: { authorization: `Bearer ${fx.token}` },
        body,
      });
      return { status: res.status, body: await res.json() };
    };
    const before = (await call('GET', `${app}/assets?limit=100`)).body.data.length;
    const badUpload = await upload(foreignFolder.id);
    expect(badUpload.status).toBe(422);
    expect(errorPaths(badUpload)).toEqual(['/folderId']);
    expect((await call('GET', `${app}/assets?limit=100`)).body.data.length).toBe(before);
    const asset = await upload(ownFolder.id);
    expect(asset.status).toBe(201);
    expect((await call('PUT', `${app}/assets/${asset.body.id}`, { folderId: foreignFolder.id })).status).toBe(422);
  });

  it('keeps metadata.author, publishedAt and publishedBy server-owned', async () => {
    const type = (await call('POST', `${app}/content-types`, { name: 'Owned', schema: { type: 'object' } })).body;
    await call('POST', `${app}/content-types/${type.id}/publish`);
    const forged = { author: 'mallory', publishedBy: 'mallory', publishedAt: '1999-01-01T00:00:00.000Z', locale: 'en' };
    const created = (
      await call('POST', `${app}/content`, { typeId: type.id, name: 'owned', content: {}, metadata: forged })
    ).body;
    expect(created.metadata).toEqual({ author: userId(), locale: 'en' });

    const published = (await call('POST', `${app}/content/${created.id}/publish`)).body;
    expect(published.metadata).toMatchObject({ author: userId(), publishedBy: userId() });
    const publishedAt = published.metadata.publishedAt;
    expect(Date.parse(publishedAt)).toBeGreaterThan(Date.parse('2020-01-01'));

    const edited = (await call('PUT', `${app}/content/${created.id}`, { metadata: { ...forged, locale: 'de' } })).body;
    expect(edited.metadata).toEqual({ author: userId(), publishedBy: userId(), publishedAt, locale: 'de' });
  });
});
