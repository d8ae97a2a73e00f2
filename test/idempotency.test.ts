// Black-box: idempotent retries (D17) — `Idempotency-Key` on /app/v1 POSTs and GraphQL mutations, shared by replicas.
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

describe('idempotent retries (D17)', () => {
  const fx = useService();
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
    const [a, b] = await Promise.all([post(`${base}/components`, body, 'concurrent-1'), post(`${base}/components`, body, 'concurrent-1')]);
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
    const mutation = { query: 'mutation { createTag(organizationId: "default", projectId: "default", input: { name: "graph" }) { id name } }' };
    const first = await post('/graphql', mutation, 'graphql-1');
    const second = await post('/graphql', mutation, 'graphql-1');
    expect(first.body.data.createTag.name).toBe('graph');
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    const query = { query: '{ tags(organizationId: "default", projectId: "default", search: "graph") { pagination { total } } }' };
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
});
