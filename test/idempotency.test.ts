// Black-box: idempotent retries — `Idempotency-Key` on /app/v1 POSTs and GraphQL mutations, shared by replicas.
import { createHash, randomUUID } from 'node:crypto';
import { Client as Pg } from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { Client, PROJECT } from './support/client';
import { startService, type TestService } from './support/service';
import { useService } from './support/setup';

const base = `/app/v1${PROJECT}`;
const source = `
/** Props. */
export interface Props { title: string; }
export function metadata() { return { title: 'Slow', description: 'Compiled on request' }; }
export default function render(props: Props) { return '<p>' + String((props as any).title) + '</p>'; }
`;

describe('idempotent retries', () => {
  // Webhooks here point at this machine (their URLs are checked when created; no delivery is awaited).
  const fx = useService({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: '1' } });
  let replica: TestService | undefined;
  afterAll(() => replica?.destroy());
  const post = (path: string, body: unknown, key: string, client: Client = fx.api) =>
    client.call('POST', path, { token: fx.token, body, headers: { 'idempotency-key': key } });

  it('creates one resource when a create is retried five times, answering the same body each time', async () => {
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await post(`${base}/tags`, { name: 'retried' }, 'create-tag-1'));
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201, 201]);
    expect(answers[0].headers.get('idempotent-replayed')).toBeNull();
    for (const a of answers.slice(1)) {
      expect(a.headers.get('idempotent-replayed')).toBe('true');
      expect(a.body).toEqual(answers[0].body);
    }
    const tags = await fx.api.call('GET', `${base}/tags?search=retried`, { token: fx.token });
    expect(tags.body.pagination.total).toBe(1);
  });

  it('refuses the same key with another body (422) or path, and replays 4xx answers', async () => {
    await post(`${base}/tags`, { name: 'first' }, 'reuse-1');
    const other = await post(`${base}/tags`, { name: 'second' }, 'reuse-1');
    expect(other.status).toBe(422);
    expect(other.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    const otherPath = await post(`${base}/folders`, { name: 'first' }, 'reuse-1');
    expect(otherPath.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect((await fx.api.call('GET', `${base}/tags?search=second`, { token: fx.token })).body.pagination.total).toBe(0);

    const invalid = await post(`${base}/content-types`, { description: 'no name' }, 'invalid-1');
    expect(invalid.status).toBe(422);
    const again = await post(`${base}/content-types`, { description: 'no name' }, 'invalid-1');
    expect(again.status).toBe(422);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(invalid.body);

    const bad = await post(`${base}/tags`, { name: 'x' }, '');
    expect(bad.status).toBe(400);
  });

  it('answers 409 IDEMPOTENCY_KEY_IN_USE to a duplicate sent while the first is still running', async () => {
    const body = { name: 'SlowCard', type: 'view', content: source };
    const [a, b] = await Promise.all([
      post(`${base}/components`, body, 'concurrent-1'),
      post(`${base}/components`, body, 'concurrent-1'),
    ]);
    const statuses = [a.status, b.status];
    expect(statuses).toContain(409);
    const refused = a.status === 409 ? a : b;
    expect(refused.body.error.code).toBe('IDEMPOTENCY_KEY_IN_USE');
    // Once the first has finished, the retry gets its stored answer.
    const first = a.status === 409 ? b : a;
    const retry = await post(`${base}/components`, body, 'concurrent-1');
    expect(retry.status).toBe(first.status);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
  });

  it('replays GraphQL mutations over HTTP, and only mutations', async () => {
    const mutation = {
      query:
        'mutation { createTag(organizationId: "default", projectId: "default", input: { name: "graph" }) { id name } }',
    };
    const first = await post('/graphql', mutation, 'graphql-1');
    const second = await post('/graphql', mutation, 'graphql-1');
    expect(first.body.data.createTag.name).toBe('graph');
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    const query = {
      query: '{ tags(organizationId: "default", projectId: "default", search: "graph") { pagination { total } } }',
    };
    const read = await post('/graphql', query, 'graphql-1');
    expect(read.headers.get('idempotent-replayed')).toBeNull();
    expect(read.body.data.tags.pagination.total).toBe(1);
  });

  it('shares keys between replicas', async () => {
    replica = await startService({ databaseUrl: fx.service.databaseUrl });
    const other = new Client(replica.url);
    const first = await post(`${base}/tags`, { name: 'replicated' }, 'replica-1');
    const second = await post(`${base}/tags`, { name: 'replicated' }, 'replica-1', other);
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body).toEqual(first.body);
  });
  /** Every stored answer of `caller`'s keys, as the database holds them. */
  async function storedRows(): Promise<string> {
    const pg = new Pg({ connectionString: fx.service.databaseUrl });
    await pg.connect();
    try {
      return JSON.stringify((await pg.query('select * from idempotency_key')).rows);
    } finally {
      await pg.end();
    }
  }

  it('never stores or replays a secret: API key values and issued tokens are omitted from replays (REST and GraphQL)', async () => {
    const created = await post(`${base}/api-keys`, { name: 'secret-rest' }, 'secret-key-1');
    expect(created.status).toBe(201);
    expect(created.body.key).toMatch(/^cpk_live_/);
    const replayed = await post(`${base}/api-keys`, { name: 'secret-rest' }, 'secret-key-1');
    expect(replayed.status).toBe(201);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    const { key: _key, ...visible } = created.body;
    expect(replayed.body).toEqual(visible);

    const issued = await post('/app/v1/auth/tokens', { projectId: 'default', expiresIn: 120 }, 'secret-token-1');
    expect(issued.status).toBe(201);
    expect(typeof issued.body.token).toBe('string');
    const reissued = await post('/app/v1/auth/tokens', { projectId: 'default', expiresIn: 120 }, 'secret-token-1');
    expect(reissued.headers.get('idempotent-replayed')).toBe('true');
    expect(reissued.body).not.toHaveProperty('token');

    const mutation = {
      query:
        'mutation { createApiKey(organizationId: "default", projectId: "default", input: { name: "secret-graphql" }) { id name key } }',
    };
    const first = await post('/graphql', mutation, 'secret-graphql-1');
    expect(first.body.data.createApiKey.key).toMatch(/^cpk_live_/);
    const second = await post('/graphql', mutation, 'secret-graphql-1');
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body.data.createApiKey).toEqual({ id: first.body.data.createApiKey.id, name: 'secret-graphql' });

    const rows = await storedRows();
    for (const secret of [created.body.key, issued.body.token, first.body.data.createApiKey.key])
      expect(rows).not.toContain(secret);
  });

  it('never stores a secret selected under an alias or in a fragment, nor a webhook’s signing secret', async () => {
    const aliased = {
      query: `mutation {
        one: createApiKey(organizationId: "default", projectId: "default", input: { name: "aliased" }) { id value: key }
        two: issueToken(input: { projectId: "default", expiresIn: 120 }) { ...Issued }
      }
      fragment Issued on IssuedToken { credential: token }`,
    };
    const first = await post('/graphql', aliased, 'secret-aliased-1');
    expect(first.body.data.one.value).toMatch(/^cpk_live_/);
    expect(typeof first.body.data.two.credential).toBe('string');
    const second = await post('/graphql', aliased, 'secret-aliased-1');
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body.data).toEqual({ one: { id: first.body.data.one.id }, two: {} });

    const hook = { url: 'http://127.0.0.1:9/cp', secret: 'my-signing-secret-123456' };
    const created = await post(`${base}/webhooks`, hook, 'secret-webhook-1');
    expect(created.status).toBe(201);
    expect(created.body.secret).toBe(hook.secret);
    const replayed = await post(`${base}/webhooks`, hook, 'secret-webhook-1');
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    const { secret: _secret, ...visible } = created.body;
    expect(replayed.body).toEqual(visible);
    const generated = {
      query:
        'mutation { createWebhook(organizationId: "default", projectId: "default", input: { url: "http://127.0.0.1:9/gql" }) { id signing: secret } }',
    };
    const webhook = await post('/graphql', generated, 'secret-webhook-2');
    expect(typeof webhook.body.data.createWebhook.signing).toBe('string');

    const rows = await storedRows();
    for (const secret of [
      first.body.data.one.value,
      first.body.data.two.credential,
      hook.secret,
      webhook.body.data.createWebhook.signing,
    ])
      expect(rows).not.toContain(secret);
  });

  it('honours the key on a mutation sent as an automatic persisted query’s hash alone', async () => {
    const name = `apq-${randomUUID()}`;
    const query = `mutation Persisted { createApiKey(organizationId: "default", projectId: "default", input: { name: "${name}" }) { id name key } }`;
    const persistedQuery = { version: 1, sha256Hash: createHash('sha256').update(query).digest('hex') };
    // Registered by a request that carries the text (and no key), as Apollo Client does after a miss.
    await fx.api.call('POST', '/graphql', { token: fx.token, body: { query, extensions: { persistedQuery } } });
    const byHash = { extensions: { persistedQuery } };
    const first = await post('/graphql', byHash, 'apq-1');
    expect(first.body.data.createApiKey.key).toMatch(/^cpk_live_/);
    const second = await post('/graphql', byHash, 'apq-1');
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body.data.createApiKey).toEqual({ id: first.body.data.createApiKey.id, name });
    const keys = await fx.api.call('GET', `${base}/api-keys?limit=100`, { token: fx.token });
    expect(keys.body.data.filter((k: { name: string }) => k.name === name)).toHaveLength(2);
    expect(await storedRows()).not.toContain(first.body.data.createApiKey.key);
    // A retry may come the other way round (with its text after a miss elsewhere, or by hash after sending the text):
    // the same request either way.
    const withText = await post('/graphql', { query, extensions: { persistedQuery } }, 'apq-1');
    expect(withText.headers.get('idempotent-replayed')).toBe('true');
    expect(withText.body).toEqual(second.body);
    const textFirst = await post('/graphql', { query, extensions: { persistedQuery } }, 'apq-3');
    expect(textFirst.body.data.createApiKey.key).toMatch(/^cpk_live_/);
    const hashRetry = await post('/graphql', byHash, 'apq-3');
    expect(hashRetry.headers.get('idempotent-replayed')).toBe('true');
    expect(hashRetry.body.data.createApiKey.id).toBe(textFirst.body.data.createApiKey.id);
    // A hash the service has never seen runs nothing (Apollo asks for the text) and is not kept under the key.
    const unknown = { extensions: { persistedQuery: { version: 1, sha256Hash: 'f'.repeat(64) } } };
    const missed = await post('/graphql', unknown, 'apq-2');
    expect(missed.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    expect((await post('/graphql', unknown, 'apq-2')).headers.get('idempotent-replayed')).toBeNull();
  });

  it('replays only while the caller still holds the permission the first request needed', async () => {
    const ORG = '/app/v1/organizations/default';
    const role = await fx.api.call('POST', `${ORG}/roles`, {
      token: fx.token,
      body: { name: `keys-${randomUUID()}`, permissions: { apiKeys: { create: true, read: true } } },
    });
    expect(role.status).toBe(201);
    const email = `${randomUUID()}@example.com`;
    const user = await fx.api.call('POST', `${ORG}/users`, {
      token: fx.token,
      body: { email, name: 'K', password: 'grey-otter-kettle-41', roleId: role.body.id },
    });
    expect(user.status).toBe(201);
    const token = await fx.api.login(email, 'grey-otter-kettle-41');
    const create = () =>
      fx.api.call('POST', `${base}/api-keys`, {
        token,
        body: { name: 'by-role' },
        headers: { 'idempotency-key': 'lost-permission-1' },
      });
    expect((await create()).status).toBe(201);
    expect((await create()).headers.get('idempotent-replayed')).toBe('true');
    const narrowed = await fx.api.call('PUT', `${ORG}/roles/${role.body.id}`, {
      token: fx.token,
      body: { permissions: { apiKeys: { read: true } } },
    });
    expect(narrowed.status).toBe(200);
    const refused = await create();
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'FORBIDDEN', details: { resource: 'apiKeys', action: 'create' } });
  });

  it('fingerprints If-Match: the same key with another precondition is another request (422)', async () => {
    const type = await fx.api.call('POST', `${base}/content-types`, {
      token: fx.token,
      body: { name: `IfMatch${randomUUID().slice(0, 8)}`, schema: { type: 'object' } },
    });
    expect(type.status).toBe(201);
    const publish = (revision: string) =>
      fx.api.call('POST', `${base}/content-types/${type.body.id}/publish`, {
        token: fx.token,
        headers: { 'idempotency-key': 'if-match-1', 'if-match': revision },
      });
    const first = await publish(String(type.body.revision ?? 1));
    expect(first.status).toBe(200);
    const other = await publish('999');
    expect(other.status).toBe(422);
    expect(other.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
  });
});
