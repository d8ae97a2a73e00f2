// Black-box: preview API keys read the working state, read-only, privately, never through the shared read cache.
import fc from 'fast-check';
import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { Client, PROJECT } from './support/client';
import { startService, UNLIMITED, type TestService } from './support/service';
import { useService } from './support/setup';
import { openSse } from './support/sse';

const RUNS = Number(process.env.FC_RUNS ?? 4);
const SEED = Number(process.env.FC_SEED ?? 20261125);
const app = `/app/v1${PROJECT}`;
const api = `/api/v1${PROJECT}`;
const scope = 'organizationId: "default", projectId: "default"';
const schema = { type: 'object', properties: { title: { type: 'string' } } };
const CONTENTS = `{ contents(${scope}) { data { id name status version content } } }`;

describe('preview API keys', () => {
  const fx = useService({ env: UNLIMITED });
  /** A second gateway on the same database with the read cache off: what every answer must equal. */
  let reference: TestService;
  let fresh: Client;
  const ids = {} as Record<'type' | 'draftType' | 'modified' | 'draft' | 'deleted' | 'unpublished', string>;
  let published: string;
  let preview: string;

  const admin = async (method: string, path: string, body?: unknown) => {
    const res = await fx.api.call(method, path, { token: fx.token, body });
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const read = (path: string, apiKey: string, client = fx.api) => client.call('GET', `${api}${path}`, { apiKey });
  const createKey = async (body: Record<string, unknown>) =>
    (await admin('POST', `${app}/api-keys`, body)).key as string;

  beforeAll(async () => {
    ids.type = (await admin('POST', `${app}/content-types`, { name: 'Page', schema })).id;
    await admin('POST', `${app}/content-types/${ids.type}/publish`);
    ids.draftType = (await admin('POST', `${app}/content-types`, { name: 'Unreleased', schema })).id;
    const entry = async (name: string, title: string) =>
      (await admin('POST', `${app}/content`, { typeId: ids.type, name, content: { title } })).id as string;
    ids.modified = await entry('Home', 'live harvest');
    await admin('POST', `${app}/content/${ids.modified}/publish`);
    await admin('PUT', `${app}/content/${ids.modified}`, {
      name: 'Home zorblax',
      content: { title: 'zorblax harvest draft' },
    });
    ids.draft = await entry('Launch zorblax', 'zorblax draft only');
    ids.deleted = await entry('Gone zorblax', 'zorblax deleted');
    await admin('DELETE', `${app}/content/${ids.deleted}`);
    ids.unpublished = await entry('Withdrawn zorblax', 'zorblax withdrawn');
    await admin('POST', `${app}/content/${ids.unpublished}/publish`);
    await admin('POST', `${app}/content/${ids.unpublished}/unpublish`);
    published = await createKey({ name: 'site' });
    preview = await createKey({ name: 'draft mode', scope: 'preview' });
    reference = await startService({ databaseUrl: fx.service.databaseUrl, env: { ...UNLIMITED, CACHE: 'off' } });
    fresh = new Client(reference.url);
  }, 180_000);
  afterAll(() => reference?.destroy());

  it('creates keys with a scope fixed at creation, shown on every read; another scope is 422', async () => {
    const created = await fx.api.call('POST', `${app}/api-keys`, {
      token: fx.token,
      body: { name: 'p', description: 'next.js', scope: 'preview' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ scope: 'preview', key: expect.stringMatching(/^cpk_live_/) });
    expect((await admin('GET', `${app}/api-keys/${created.body.id}`)).scope).toBe('preview');
    const listed = await admin('GET', `${app}/api-keys?limit=100`);
    const scopes = new Map(listed.data.map((k: { id: string; scope: string }) => [k.id, k.scope]));
    expect(scopes.get(created.body.id)).toBe('preview');
    expect([...scopes.values()].every((s) => s === 'published' || s === 'preview')).toBe(true);
    expect((await admin('POST', `${app}/api-keys`, { name: 'default' })).scope).toBe('published');

    for (const bad of ['everything', 'PREVIEW', '', 7, null]) {
      const refused = await fx.api.call('POST', `${app}/api-keys`, {
        token: fx.token,
        body: { name: 'x', scope: bad },
      });
      if (bad === null) {
        // An explicit null is the default, as for every optional member.
        expect(refused.status).toBe(201);
        continue;
      }
      expect(refused.status, JSON.stringify(bad)).toBe(422);
      expect(refused.body.error.code).toBe('VALIDATION_FAILED');
      expect(refused.body.error.details.errors[0].path).toBe('/scope');
    }
    const mutation = `mutation($input: CreateApiKeyInput!) { createApiKey(${scope}, input: $input) { scope key } }`;
    const viaGraphql = await fx.api.graphql(
      mutation,
      { input: { name: 'gql', scope: 'preview' } },
      { token: fx.token },
    );
    expect(viaGraphql.body.data?.createApiKey.scope).toBe('preview');
    const wrong = await fx.api.graphql(mutation, { input: { name: 'gql', scope: 'drafts' } }, { token: fx.token });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors?.[0].extensions?.code).toBe('VALIDATION_FAILED');
  });

  it('lists, filters, searches and resolves the working state; deleted and unpublished stay hidden', async () => {
    const workingIds = [ids.modified, ids.draft].sort();
    const list = await read('/content?limit=100', preview);
    expect(list.status).toBe(200);
    expect(list.body.data.map((e: { id: string }) => e.id).sort()).toEqual(workingIds);
    const home = list.body.data.find((e: { id: string }) => e.id === ids.modified);
    expect(home).toMatchObject({
      name: 'Home zorblax',
      status: 'modified',
      version: null,
      content: { title: 'zorblax harvest draft' },
    });
    // The published key, same URL (the cache now holds its answer): the published version only.
    const live = await read('/content?limit=100', published);
    expect(live.body.data).toHaveLength(1);
    expect(live.body.data[0]).toMatchObject({
      id: ids.modified,
      name: 'Home',
      status: 'published',
      content: { title: 'live harvest' },
    });
    expect((await read('/content?limit=100', preview)).body.data).toHaveLength(2);

    // Filters and full-text act on the working copy.
    expect((await read('/content?status=draft', preview)).body.data.map((e: { id: string }) => e.id)).toEqual([
      ids.draft,
    ]);
    expect((await read('/content?search=zorbl', preview)).body.data.map((e: { id: string }) => e.id).sort()).toEqual(
      workingIds,
    );
    expect((await read('/content?search=zorbl', published)).body.data).toEqual([]);
    const hidden = await read('/content?status=unpublished', preview);
    expect(hidden.status).toBe(400);
    expect(hidden.body.error.details).toMatchObject({ parameter: 'status' });
    const search = await fx.api.call('POST', `${api}/content/search`, {
      apiKey: preview,
      body: { filter: { name: { like: '%zorblax%' } } },
    });
    expect(search.body.data.map((e: { id: string }) => e.id).sort()).toEqual(workingIds);
    expect(search.body.pagination.total).toBe(2);
    const deletedToo = await fx.api.call('POST', `${api}/content/search`, {
      apiKey: preview,
      body: { filter: { status: { in: ['deleted', 'unpublished', 'draft'] } } },
    });
    expect(deletedToo.body.data.map((e: { id: string }) => e.id)).toEqual([ids.draft]);

    // Single reads and `resolved` against the working copy; hidden ones are 404 like unknown ids.
    const single = await fx.api.graphql(
      `{ content(${scope}, id: "${ids.draft}") { id status } }`,
      {},
      { apiKey: preview },
    );
    expect(single.body.data?.content).toEqual({ id: ids.draft, status: 'draft' });
    const resolved = await read(`/content/${ids.modified}/resolved`, preview);
    expect(resolved.status).toBe(200);
    expect(resolved.body).toMatchObject({
      name: 'Home zorblax',
      content: { title: 'zorblax harvest draft' },
      contentType: { version: 1 },
    });
    expect(resolved.body.compiled).toEqual(expect.any(String));
    expect((await read(`/content/${ids.draft}/resolved`, preview)).status).toBe(200);
    expect((await read(`/content/${ids.draft}/resolved`, published)).status).toBe(404);
    for (const id of [ids.deleted, ids.unpublished]) {
      expect((await read(`/content/${id}/resolved`, preview)).status).toBe(404);
      const gone = await fx.api.graphql(`{ content(${scope}, id: "${id}") { id } }`, {}, { apiKey: preview });
      expect(gone.body.errors?.[0].extensions?.code).toBe('NOT_FOUND');
    }

    // Content types: the never-published one appears for preview only.
    const types = (await read('/content-types', preview)).body.data.map((t: { id: string }) => t.id);
    expect(types).toContain(ids.draftType);
    expect((await read('/content-types', published)).body.data.map((t: { id: string }) => t.id)).not.toContain(
      ids.draftType,
    );
    expect((await read(`/content-types/${ids.draftType}`, preview)).body).toMatchObject({ status: 'draft' });
    expect((await read(`/content-types/${ids.draftType}`, published)).status).toBe(404);

    // GraphQL: the same working state.
    const gql = await fx.api.graphql(CONTENTS, {}, { apiKey: preview });
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.contents.data.map((e: { id: string }) => e.id).sort()).toEqual(workingIds);
    const one = await fx.api.graphql(
      `{ resolvedContent(${scope}, id: "${ids.draft}") { name status contentType { version } } }`,
      {},
      { apiKey: preview },
    );
    expect(one.body.data?.resolvedContent).toEqual({
      name: 'Launch zorblax',
      status: 'draft',
      contentType: { version: 1 },
    });
  });

  it('ranks the working copies for a semantic `query`, never for a published key', async () => {
    // The embedding indexer works in the background: wait until it has seen the drafts.
    let found: string[] = [];
    for (const deadline = Date.now() + 90_000; Date.now() < deadline && !found.includes(ids.draft);) {
      found = (await read('/content?query=zorblax%20draft', preview)).body.data.map((e: { id: string }) => e.id);
      if (!found.includes(ids.draft)) await new Promise((r) => setTimeout(r, 500));
    }
    expect(found).toContain(ids.draft);
    expect(found).not.toContain(ids.deleted);
    const ranked = await fx.api.call('POST', `${api}/content/search`, {
      apiKey: preview,
      body: { query: 'zorblax draft' },
    });
    expect(ranked.body.data.map((e: { id: string }) => e.id)).toContain(ids.draft);
    const live = (await read('/content?query=zorblax%20draft', published)).body.data.map((e: { id: string }) => e.id);
    expect(live).not.toContain(ids.draft);
  }, 120_000);

  it('answers privately: private, no-store, no purge tags, never from or into the shared cache', async () => {
    for (let i = 0; i < 2; i++) {
      for (const path of ['/content', `/content/${ids.draft}/resolved`, '/content-types', '/content/nope/resolved']) {
        const res = await read(path, preview);
        expect(res.headers.get('cache-control'), path).toBe('private, no-store');
        expect(res.headers.get('surrogate-key'), path).toBeNull();
        expect(res.headers.get('cache-tag'), path).toBeNull();
        expect(res.headers.get('x-cache'), path).toBeNull();
      }
    }
    for (const request of [
      () => fx.api.graphql(CONTENTS, {}, { apiKey: preview }),
      () => fx.api.call('GET', `/graphql?query=${encodeURIComponent(CONTENTS)}`, { apiKey: preview }),
    ]) {
      const res = await request();
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('private, no-store');
      expect(res.headers.get('x-cache')).toBeNull();
    }
    // A published key's answers stay shared and cacheable.
    await read('/content-types', published);
    const shared = await read('/content-types', published);
    expect(shared.headers.get('cache-control')).toMatch(/^public/);
    expect(shared.headers.get('surrogate-key')).toContain('cp-project-default');
  });

  it('cache separation (property): published answers depend on published state only, preview answers are always fresh', async () => {
    const paths = [
      '/content?limit=5',
      '/content?search=zorbl',
      `/content/${ids.modified}/resolved`,
      `/content/${ids.draft}/resolved`,
      '/content-types',
      `/content-types/${ids.type}`,
    ];
    type Step =
      | { kind: 'read'; key: 'published' | 'preview'; path: number; graphql: boolean }
      | { kind: 'edit'; target: 'modified' | 'draft'; title: string }
      | { kind: 'create'; title: string }
      | { kind: 'editType'; description: string };
    const title = fc.constantFrom('zorblax', 'meadow', 'copper lantern', 'quarterly report');
    const step: fc.Arbitrary<Step> = fc.oneof(
      {
        weight: 6,
        arbitrary: fc.record({
          kind: fc.constant('read' as const),
          key: fc.constantFrom('published' as const, 'preview' as const),
          path: fc.nat(paths.length - 1),
          graphql: fc.boolean(),
        }),
      },
      {
        weight: 2,
        arbitrary: fc.record({
          kind: fc.constant('edit' as const),
          target: fc.constantFrom('modified' as const, 'draft' as const),
          title,
        }),
      },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('create' as const), title }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('editType' as const), description: title }) },
    );
    const keys = { published, preview };
    /** Status and body, request ids aside. */
    const answer = async (client: Client, key: string, s: Extract<Step, { kind: 'read' }>) => {
      const res = s.graphql
        ? await client.graphql(CONTENTS, {}, { apiKey: key })
        : await read(paths[s.path], key, client);
      return {
        text: `${res.status} ${JSON.stringify(res.body).replace(/"requestId":"[^"]*"/g, '')}`,
        headers: res.headers,
      };
    };
    const firstPublished = new Map<string, string>();

    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 6, maxLength: 14 }), async (steps) => {
        for (const s of steps) {
          if (s.kind === 'edit') {
            await admin('PUT', `${app}/content/${ids[s.target]}`, {
              content: { title: `${s.title} ${Math.random()}` },
            });
          } else if (s.kind === 'create') {
            await admin('POST', `${app}/content`, { typeId: ids.type, name: s.title, content: { title: s.title } });
          } else if (s.kind === 'editType') {
            await admin('PUT', `${app}/content-types/${ids.type}`, {
              description: `${s.description} ${Math.random()}`,
            });
          } else {
            const got = await answer(fx.api, keys[s.key], s);
            const expected = await answer(fresh, keys[s.key], s);
            const label = `${s.key} ${s.graphql ? 'graphql' : paths[s.path]} after ${JSON.stringify(steps)}`;
            // Equal to a gateway without any cache: a preview read never sees a published entry and vice versa. Both
            // share the key's rate-limit counters; a refusal on either side would compare nothing.
            expect(expected.text, label).not.toMatch(/^429 /);
            expect(got.text, label).toBe(expected.text);
            if (s.key === 'preview') {
              expect(got.headers.get('cache-control'), label).toBe('private, no-store');
              expect(got.headers.get('x-cache'), label).toBeNull();
            } else {
              // Only draft writes happen here: a published key's answer never changes at all.
              const id = `${s.graphql}|${s.path}`;
              if (!firstPublished.has(id)) firstPublished.set(id, got.text);
              expect(got.text, label).toBe(firstPublished.get(id));
            }
          }
        }
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
  }, 600_000);

  it('is read-only, and never reaches /app/v1', async () => {
    const write = await fx.api.graphql(
      `mutation { updateContent(${scope}, id: "${ids.draft}", input: { name: "hijacked" }) { id } }`,
      {},
      { apiKey: preview },
    );
    expect(write.status).toBe(403);
    expect(write.body.errors?.[0].extensions?.code).toBe('FORBIDDEN');
    const create = await fx.api.graphql(
      `mutation { createApiKey(${scope}, input: { name: "more", scope: preview }) { key } }`,
      {},
      { apiKey: preview },
    );
    expect(create.body.errors?.[0].extensions?.code).toBe('FORBIDDEN');
    expect((await read(`/content/${ids.draft}/resolved`, preview)).body.name).toBe('Launch zorblax');
    for (const [method, path] of [
      ['GET', `${app}/content`],
      ['GET', `${app}/api-keys`],
      ['PUT', `${app}/content/${ids.draft}`],
    ] as const) {
      const res = await fx.api.call(method, path, {
        apiKey: preview,
        body: method === 'PUT' ? { name: 'x' } : undefined,
      });
      expect(res.status, `${method} ${path}`).toBe(401);
      expect(res.body.error.code).toBe('UNAUTHORIZED');
    }
  });

  it('receives the working-state events over REST, SSE and graphql-ws; a published key only published-state ones', async () => {
    const stream = await openSse(`${fx.service.url}${api}/content/events`, { 'x-api-key': preview });
    const ws = createClient({
      url: `${fx.service.url.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { 'x-api-key': preview },
      retryAttempts: 0,
    });
    const live: string[] = [];
    const dispose = ws.subscribe(
      { query: 'subscription { events(projectId: "default", resourceType: "content") { type resourceId } }' },
      {
        next: (m) => live.push((m.data?.events as { type: string }).type),
        error: () => undefined,
        complete: () => undefined,
      },
    );
    await new Promise((r) => setTimeout(r, 500));
    const created = await admin('POST', `${app}/content`, {
      typeId: ids.type,
      name: 'Evented',
      content: { title: 'x' },
    });
    await admin('PUT', `${app}/content/${created.id}`, { content: { title: 'y' } });
    const streamed = await stream.take(2, 10_000);
    stream.close();
    expect(streamed.map((e) => e.data.type)).toEqual(['content.created', 'content.updated']);
    for (let i = 0; i < 50 && live.length < 2; i++) await new Promise((r) => setTimeout(r, 100));
    dispose();
    await ws.dispose();
    expect(live).toEqual(['content.created', 'content.updated']);

    const events = async (key: string) =>
      (await read(`/content/${created.id}/events`, key)).body.data.map((e: { type: string }) => e.type);
    expect(await events(preview)).toEqual(['content.created', 'content.updated']);
    expect(await events(published)).toEqual([]);
    // Staff-only families (API keys, users) stay out of a preview key's feed.
    const all = await read('/events?limit=100', preview);
    expect(all.body.data.some((e: { resourceType: string }) => e.resourceType === 'api-keys')).toBe(false);
  });

  it('is refused at once when revoked, on REST and GraphQL', async () => {
    const doomed = await fx.api.call('POST', `${app}/api-keys`, {
      token: fx.token,
      body: { name: 'temp', scope: 'preview' },
    });
    expect((await read('/content', doomed.body.key)).status).toBe(200);
    await admin('POST', `${app}/api-keys/${doomed.body.id}/revoke`);
    const refused = await read('/content', doomed.body.key);
    expect(refused.status).toBe(401);
    expect((await fx.api.graphql(CONTENTS, {}, { apiKey: doomed.body.key })).status).toBe(401);
  });
});
