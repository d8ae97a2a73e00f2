// Black-box: the published-read cache — hits and misses, ETag/304, CDN headers, APQ GET, isolation, revocation.
import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { Client, PROJECT } from './support/client';
import { useService } from './support/setup';

const app = `/app/v1${PROJECT}`;
const api = `/api/v1${PROJECT}`;
const CONTENTS =
  'query Contents($limit: Int) { contents(organizationId: "default", projectId: "default", limit: $limit) { data { id name version content } } }';

/** Waits until this replica has applied the events announced so far: the cache stops answering BYPASS. */
async function settled(read: () => Promise<{ headers: Headers }>): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if ((await read()).headers.get('x-cache') !== 'BYPASS') return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the read cache stayed in BYPASS');
}

describe('published-read cache', () => {
  const fx = useService();
  let typeId: string;
  let entryId: string;
  let key: string;
  const call = (method: string, path: string, body?: unknown) => fx.api.call(method, path, { token: fx.token, body });
  const read = (path: string, headers: Record<string, string> = {}, apiKey = key) =>
    fx.api.call('GET', `${api}${path}`, { apiKey, headers });

  beforeAll(async () => {
    typeId = (
      await call('POST', `${app}/content-types`, {
        name: 'Page',
        schema: { type: 'object', properties: { title: { type: 'string' } } },
      })
    ).body.id;
    await call('POST', `${app}/content-types/${typeId}/publish`);
    entryId = (await call('POST', `${app}/content`, { typeId, name: 'Home', content: { title: 'v1' } })).body.id;
    await call('POST', `${app}/content/${entryId}/publish`);
    key = (await call('POST', `${app}/api-keys`, { name: 'reader' })).body.key;
    await settled(() => read('/content-types?limit=1'));
  });

  it('answers a repeated client read from the cache with the same bytes, a strong ETag and CDN headers', async () => {
    const first = await read('/content?limit=20');
    expect(first.status).toBe(200);
    expect(first.headers.get('x-cache')).toBe('MISS');
    const second = await read('/content?limit=20');
    expect(second.headers.get('x-cache')).toBe('HIT');
    expect(second.body).toEqual(first.body);
    const etag = second.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]{43}"$/);
    expect(etag).toBe(first.headers.get('etag'));
    expect(second.headers.get('cache-control')).toBe('public, no-cache');
    expect(second.headers.get('vary')).toMatch(/x-api-key/i);
    expect(second.headers.get('surrogate-key')).toBe('cp-project-default cp-project-default-content');
    expect(second.headers.get('cache-tag')).toBe('cp-project-default,cp-project-default-content');
    expect(second.headers.get('ratelimit-limit')).toBeTruthy(); // limits still count on a hit
    // Another query string is another entry.
    expect((await read('/content?limit=5')).headers.get('x-cache')).toBe('MISS');
    expect((await read(`/content/${entryId}/resolved`)).headers.get('surrogate-key')).toContain(
      `cp-content-${entryId}`,
    );
  });

  it('answers If-None-Match with 304 and no body, on a hit and on a miss', async () => {
    const { headers } = await read(`/content/${entryId}/resolved`);
    const etag = headers.get('etag')!;
    const hit = await read(`/content/${entryId}/resolved`, { 'if-none-match': etag });
    expect(hit.status).toBe(304);
    expect(hit.headers.get('x-cache')).toBe('HIT');
    expect(hit.body).toBeUndefined();
    expect(hit.headers.get('etag')).toBe(etag);
    // A weak form of the same tag matches too (RFC 9110 weak comparison); another tag does not.
    expect((await read(`/content/${entryId}/resolved`, { 'if-none-match': `"nope", W/${etag}` })).status).toBe(304);
    expect((await read(`/content/${entryId}/resolved`, { 'if-none-match': '"nope"' })).status).toBe(200);
    // Miss path (a language not seen yet is a separate entry): still 304.
    const miss = await read(`/content/${entryId}/resolved`, { 'if-none-match': etag, 'accept-language': 'de' });
    expect(miss.headers.get('x-cache')).toBe('MISS');
    expect(miss.status).toBe(304);
  });

  it('never caches errors, and drops a project’s entries when its content changes', async () => {
    const missing = await read('/content/00000000-0000-0000-0000-000000000000/resolved');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('x-cache')).not.toBe('HIT');
    expect(missing.headers.get('cache-control')).toBe('no-store');
    expect((await read('/content/00000000-0000-0000-0000-000000000000/resolved')).headers.get('x-cache')).not.toBe(
      'HIT',
    );

    await read(`/content/${entryId}/resolved`);
    expect((await read(`/content/${entryId}/resolved`)).headers.get('x-cache')).toBe('HIT');
    await call('PUT', `${app}/content/${entryId}`, { content: { title: 'v2' } });
    await call('POST', `${app}/content/${entryId}/publish`);
    const after = await read(`/content/${entryId}/resolved`);
    // BYPASS while this replica is still applying the publish's event (read from the database, not stored); never HIT.
    expect(['MISS', 'BYPASS']).toContain(after.headers.get('x-cache'));
    expect(after.body).toMatchObject({ version: 2, content: { title: 'v2' } });
  });

  it('caches key-holder GraphQL queries (POST and GET), never JWT callers or mutations', async () => {
    const asKey = () => fx.api.graphql(CONTENTS, { limit: 20 }, { apiKey: key });
    const first = await asKey();
    expect(first.body.errors).toBeUndefined();
    expect(first.body.data.contents.data.map((c: { id: string }) => c.id)).toContain(entryId);
    expect((await asKey()).headers.get('x-cache')).toBe('HIT');
    // The same document spelled differently (normalised) and as GET share the entry.
    const spaced = CONTENTS.replace('{ contents', '{\n  # a comment\n  contents');
    expect((await fx.api.graphql(spaced, { limit: 20 }, { apiKey: key })).headers.get('x-cache')).toBe('HIT');
    const get = await fx.api.call(
      'GET',
      `/graphql?query=${encodeURIComponent(CONTENTS)}&variables=${encodeURIComponent('{"limit":20}')}`,
      { apiKey: key },
    );
    expect(get.status).toBe(200);
    expect(get.body.data).toEqual(first.body.data);
    expect(get.headers.get('vary')).toMatch(/x-api-key/i);

    const admin = await fx.api.graphql(CONTENTS, { limit: 20 }, { token: fx.token });
    expect(admin.status).toBe(200);
    expect(admin.headers.get('x-cache')).toBeNull();
    const mutation = await fx.api.graphql('mutation { __typename }', {}, { apiKey: key });
    expect(mutation.headers.get('x-cache')).toBeNull();
  });

  it('serves automatic persisted queries over GET (hash only after registration), cacheable like any query', async () => {
    const query = `{ contents(organizationId: "default", projectId: "default", limit: 3) { data { id } } }`;
    const sha256Hash = createHash('sha256').update(query).digest('hex');
    const extensions = encodeURIComponent(JSON.stringify({ persistedQuery: { version: 1, sha256Hash } }));
    const byHash = () => fx.api.call('GET', `/graphql?extensions=${extensions}`, { apiKey: key });
    const unknown = await byHash();
    expect(unknown.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    const registered = await fx.api.call(
      'GET',
      `/graphql?query=${encodeURIComponent(query)}&extensions=${extensions}`,
      { apiKey: key },
    );
    expect(registered.status).toBe(200);
    expect(registered.body.data.contents.data.length).toBeGreaterThan(0);
    const first = await byHash();
    expect(first.status).toBe(200);
    expect(first.body.data).toEqual(registered.body.data);
    const second = await byHash();
    expect(second.headers.get('x-cache')).toBe('HIT');
    expect(
      (
        await fx.api.call('GET', `/graphql?extensions=${extensions}`, {
          apiKey: key,
          headers: { 'if-none-match': second.headers.get('etag')! },
        })
      ).status,
    ).toBe(304);
  });

  it("never answers one project's key from another project's entries", async () => {
    const project = (await call('POST', '/app/v1/organizations/default/projects', { name: 'Other' })).body;
    const otherKey = (
      await call('POST', `/app/v1/organizations/default/projects/${project.id}/api-keys`, { name: 'other' })
    ).body.key as string;
    await read('/content?limit=20');
    expect((await read('/content?limit=20')).headers.get('x-cache')).toBe('HIT');
    const crossed = await read('/content?limit=20', {}, otherKey);
    expect(crossed.status).not.toBe(200);
    expect(crossed.headers.get('x-cache')).not.toBe('HIT');
    // GraphQL ignores nothing: the other key's identical document is its own entry (and not this project's data).
    await fx.api.graphql(CONTENTS, { limit: 20 }, { apiKey: key });
    const other = await fx.api.graphql(CONTENTS, { limit: 20 }, { apiKey: otherKey });
    expect(other.headers.get('x-cache')).not.toBe('HIT');
    expect(JSON.stringify(other.body)).not.toContain(entryId);
  });

  it('refuses a revoked key even when its answer is cached', async () => {
    const created = (await call('POST', `${app}/api-keys`, { name: 'short-lived' })).body;
    // The key's creation is an event of this project: until this replica applied it, reads pass the cache by.
    await settled(() => read('/content?limit=20', {}, created.key));
    await read('/content?limit=20', {}, created.key);
    expect((await read('/content?limit=20', {}, created.key)).headers.get('x-cache')).toBe('HIT');
    expect((await call('POST', `${app}/api-keys/${created.id}/revoke`)).status).toBe(200);
    const refused = await read('/content?limit=20', {}, created.key);
    expect(refused.status).toBe(401);
    expect(JSON.stringify(refused.body)).not.toContain(entryId);
    const graphql = await fx.api.graphql(CONTENTS, { limit: 20 }, { apiKey: created.key });
    expect(graphql.status).toBe(401);
  });
});

describe('published-read cache switched off (CACHE=off)', () => {
  const fx = useService({ env: { CACHE: 'off' } });

  it('keeps the HTTP validators but never answers from memory', async () => {
    const key = (await fx.api.call('POST', `${app}/api-keys`, { token: fx.token, body: { name: 'reader' } })).body.key;
    const client = new Client(fx.service.url);
    const first = await client.call('GET', `${api}/content-types`, { apiKey: key });
    const second = await client.call('GET', `${api}/content-types`, { apiKey: key });
    expect(second.headers.get('x-cache')).toBe('BYPASS');
    expect(second.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(
      (
        await client.call('GET', `${api}/content-types`, {
          apiKey: key,
          headers: { 'if-none-match': first.headers.get('etag')! },
        })
      ).status,
    ).toBe(304);
  });
});

describe('published-read cache hits and the rate limit', () => {
  const fx = useService({ env: { RATE_LIMIT_PER_MINUTE: '6' } });

  it('spends the key’s budget on every hit, answers 429 once it is spent, and keeps the API headers on hits', async () => {
    const call = (method: string, path: string, body?: unknown) => fx.api.call(method, path, { token: fx.token, body });
    const typeId = (await call('POST', `${app}/content-types`, { name: 'Limited', schema: { type: 'object' } })).body
      .id;
    await call('POST', `${app}/content-types/${typeId}/publish`);
    const key = (await call('POST', `${app}/api-keys`, { name: 'budgeted' })).body.key;
    const read = () =>
      fx.api.call('GET', `${api}/content?limit=3`, { apiKey: key, headers: { 'x-request-id': 'budget-check' } });
    const answers = [];
    // Until refused: the first reads may be BYPASS while the key's creation event is applied here.
    for (let i = 0; i < 12 && answers.at(-1)?.status !== 429; i++) answers.push(await read());
    const admitted = answers.slice(0, -1);
    expect(admitted.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(admitted.map((a) => Number(a.headers.get('ratelimit-remaining')))).toEqual([5, 4, 3, 2, 1, 0]);
    const hits = admitted.filter((a) => a.headers.get('x-cache') === 'HIT');
    expect(hits.length).toBeGreaterThanOrEqual(3);
    for (const hit of hits) {
      expect(hit.headers.get('x-request-id')).toBe('budget-check');
      expect(hit.headers.get('x-content-type-options')).toBe('nosniff');
      expect(hit.headers.get('content-language')).toBe('en');
    }
    const refused = answers.at(-1)!;
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('RATE_LIMITED');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
