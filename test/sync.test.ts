// Black-box: sync over REST and GraphQL with API keys: snapshot, deltas, published-only, and refused tokens.
import { describe, expect, it } from 'vitest';
import { PROJECT } from './support/client';
import { UNLIMITED } from './support/service';
import { useService } from './support/setup';

const app = `/app/v1${PROJECT}`;
const api = `/api/v1${PROJECT}`;
const schema = { type: 'object', properties: { title: { type: 'string' } } };

describe('sync', () => {
  const fx = useService({ env: UNLIMITED });
  const admin = async (method: string, path: string, body?: unknown) => {
    const res = await fx.api.call(method, path, { token: fx.token, body });
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const sync = (query: string, apiKey: string) => fx.api.call('GET', `${api}/sync?${query}`, { apiKey });

  it('answers a snapshot, then each change once in its published state, over REST and GraphQL alike', async () => {
    const published = (await admin('POST', `${app}/api-keys`, { name: 'site' })).key as string;
    const preview = (await admin('POST', `${app}/api-keys`, { name: 'draft mode', scope: 'preview' })).key as string;
    const typeId = (await admin('POST', `${app}/content-types`, { name: 'SyncPage', schema })).id;
    await admin('POST', `${app}/content-types/${typeId}/publish`);
    const entry = async (name: string, locale: string) =>
      (await admin('POST', `${app}/content`, { typeId, name, content: { title: name }, metadata: { locale } }))
        .id as string;
    const [a, b, c] = [await entry('A', 'en'), await entry('B', 'en'), await entry('C', 'de')];
    for (const id of [a, b, c]) await admin('POST', `${app}/content/${id}/publish`);

    const initial = await sync(`initial=true&typeId=${typeId}`, published);
    expect(initial.status).toBe(200);
    expect(initial.body.items.map((e: { id: string }) => e.id).sort()).toEqual([a, b, c].sort());
    expect(initial.body.items[0].compiled).toBeUndefined(); // as the list answers entries
    expect(initial.body.deleted).toEqual([]);
    expect(initial.body.nextPageToken ?? null).toBeNull();
    const token = initial.body.nextSyncToken as string;

    // A draft edit is nobody's business; a republish, an unpublish and a delete are.
    await admin('PUT', `${app}/content/${a}`, { content: { title: 'draft only' } });
    await admin('PUT', `${app}/content/${b}`, { content: { title: 'B2' } });
    await admin('POST', `${app}/content/${b}/publish`);
    await admin('POST', `${app}/content/${c}/unpublish`);
    await admin('DELETE', `${app}/content/${a}`);
    const delta = await sync(`syncToken=${encodeURIComponent(token)}`, published);
    expect(delta.status).toBe(200);
    expect(delta.body.items).toEqual([expect.objectContaining({ id: b, version: 2, content: { title: 'B2' } })]);
    expect(delta.body.deleted.map((d: { id: string }) => d.id).sort()).toEqual([a, c].sort());
    expect(delta.body.nextSyncToken).toEqual(expect.any(String));
    // The same token again answers the same changes: a client that lost an answer asks again.
    const replay = await sync(`syncToken=${encodeURIComponent(token)}`, published);
    expect({ ...replay.body, nextSyncToken: '-' }).toEqual({ ...delta.body, nextSyncToken: '-' });

    const graphql = await fx.api.call('POST', '/graphql', {
      apiKey: published,
      body: {
        query: `query($t: String) { sync(organizationId: "default", projectId: "default", syncToken: $t) { items { id version content } deleted { id deletedAt } nextPageToken nextSyncToken } }`,
        variables: { t: token },
      },
    });
    expect(graphql.body.data.sync.items).toEqual(
      delta.body.items.map(({ id, version, content }: any) => ({ id, version, content })),
    );
    expect(graphql.body.data.sync.deleted).toEqual(delta.body.deleted);

    // A locale narrows the sync; the preview key syncs working copies.
    const en = await sync(`initial=true&typeId=${typeId}&locale=en`, published);
    expect(en.body.items.map((e: { id: string }) => e.id)).toEqual([b]);
    const drafts = await sync(`initial=true&typeId=${typeId}`, preview);
    expect(drafts.body.items.map((e: { id: string }) => e.id)).toEqual([b]);
  });

  it('refuses tampered, foreign and missing tokens with 400 in the envelope', async () => {
    const published = (await admin('POST', `${app}/api-keys`, { name: 'site 2' })).key as string;
    const preview = (await admin('POST', `${app}/api-keys`, { name: 'preview 2', scope: 'preview' })).key as string;
    const token = (await sync('initial=true', published)).body.nextSyncToken as string;
    const flipped = token.slice(0, 5) + (token[5] === 'A' ? 'B' : 'A') + token.slice(6);
    const cases: [string, string, string][] = [
      [`syncToken=${encodeURIComponent(flipped)}`, published, 'invalid'],
      ['syncToken=garbage', published, 'invalid'],
      [`syncToken=${encodeURIComponent(token)}`, preview, 'foreign'],
      [`pageToken=${encodeURIComponent(token)}`, published, 'wrong-kind'],
    ];
    for (const [query, key, reason] of cases) {
      const res = await sync(query, key);
      expect(res.status, query).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'BAD_REQUEST', details: { reason } });
    }
    for (const query of ['', 'initial=false', `initial=true&syncToken=${encodeURIComponent(token)}`]) {
      const res = await sync(query, published);
      expect(res.status, query).toBe(400);
      expect(res.body.error.code).toBe('BAD_REQUEST');
    }
    // Another project's key never gets this project's changes: its own project's path refuses the token.
    const other = await admin('POST', `/app/v1/organizations/default/projects`, { name: `sync-other-${Date.now()}` });
    const otherKey = (await admin('POST', `/app/v1/organizations/default/projects/${other.id}/api-keys`, { name: 'k' }))
      .key as string;
    const foreign = await fx.api.call(
      'GET',
      `/api/v1/organizations/default/projects/${other.id}/sync?syncToken=${encodeURIComponent(token)}`,
      { apiKey: otherKey },
    );
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.details).toMatchObject({ parameter: 'syncToken', reason: 'foreign' });
  });
});
