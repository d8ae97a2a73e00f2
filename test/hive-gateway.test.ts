// Black-box: Hive Gateway (a third-party federation gateway) in front of the four standalone subgraph services, on the
// committed supergraph, forwarding the client's own credentials: same data as our gateway; anonymous and forged
// refused; subscriptions go to the content service over graphql-ws and carry events written elsewhere.
import { createGatewayRuntime } from '@graphql-hive/gateway-runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, PROJECT } from './support/client';
import { startStandaloneStack, type StandaloneStack } from './support/standalone';
import { waitFor } from './support/wait';

const SCOPE = 'organizationId: "default", projectId: "default"';

describe('Hive Gateway in front of the standalone subgraph services', () => {
  let stack: StandaloneStack;
  let hive: ReturnType<typeof createGatewayRuntime>;
  let token: string;
  let apiKey: string;

  beforeAll(async () => {
    // Our gateway beside the services: it migrates the database, creates the admin and is the reference.
    stack = await startStandaloneStack({ gateway: 'beside', env: { EMBEDDINGS: 'off' } });
    // Header propagation as an operator would configure it: the client's credentials go to every subgraph. The
    // principal header is propagated too (a careless configuration) so the test shows a forged one is refused.
    hive = createGatewayRuntime({
      supergraph: stack.supergraph(),
      logging: false,
      maskedErrors: false,
      propagateHeaders: {
        fromClientToSubgraphs: ({ request }) => ({
          authorization: request.headers.get('authorization'),
          'x-api-key': request.headers.get('x-api-key'),
          'x-cp-principal': request.headers.get('x-cp-principal'),
          // The client's key reaches each subgraph service, which keeps each part's answer.
          'idempotency-key': request.headers.get('idempotency-key'),
        }),
      },
      // Subscriptions go to the content service's own graphql-ws endpoint, with the client's credentials as
      // connectionParams (an empty template value is left out).
      transportEntries: {
        content: {
          options: {
            subscriptions: {
              kind: 'ws',
              location: '/graphql',
              options: {
                connectionParams: {
                  authorization: '{context.headers.authorization}',
                  'x-api-key': '{context.headers.x-api-key}',
                },
              },
            },
          },
        },
      },
    });

    const api = new Client(stack.gateway.url);
    token = await api.login();
    const type = await api.call('POST', `/app/v1${PROJECT}/content-types`, {
      token,
      body: { name: 'Hive', schema: { type: 'object' } },
    });
    expect(type.status).toBe(201);
    expect((await api.call('POST', `/app/v1${PROJECT}/content-types/${type.body.id}/publish`, { token })).status).toBe(
      200,
    );
    const key = await api.call('POST', `/app/v1${PROJECT}/api-keys`, { token, body: { name: 'hive' } });
    expect(key.status).toBe(201);
    apiKey = key.body.key;
  }, 240_000);

  afterAll(async () => {
    await hive?.dispose();
    await stack?.stop();
  });

  const viaHive = async (query: string, headers: Record<string, string>) => {
    const res = await hive.fetch('http://hive.local/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
      body: JSON.stringify({ query }),
    });
    return {
      status: res.status,
      body: (await res.json()) as {
        data?: Record<string, unknown> | null;
        errors?: { message: string; extensions?: { code?: string } }[];
      },
    };
  };
  const viaOurs = async (query: string, headers: Record<string, string>) => {
    const res = await fetch(`${stack.gateway.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ query }),
    });
    return (await res.json()) as { data?: unknown };
  };

  it('answers a JWT query spanning content and access (an entity join) with the same data as our gateway', async () => {
    const query = `{ contentTypes(${SCOPE}) { data { name status createdBy { id email } } } organizations { data { id } } }`;
    const headers = { authorization: `Bearer ${token}` };
    const theirs = await viaHive(query, headers);
    expect(theirs.body.errors, JSON.stringify(theirs.body.errors)).toBeUndefined();
    expect(theirs.body.data).toEqual((await viaOurs(query, headers)).data);
    expect(JSON.stringify(theirs.body.data)).toContain('admin@example.com');
  });

  it('answers an API-key query spanning content and components with the same data as our gateway', async () => {
    const query = `{ contentTypes(${SCOPE}) { data { name version } } components(${SCOPE}) { data { id } } }`;
    const headers = { 'x-api-key': apiKey };
    const theirs = await viaHive(query, headers);
    expect(theirs.body.errors, JSON.stringify(theirs.body.errors)).toBeUndefined();
    expect(theirs.body.data).toEqual((await viaOurs(query, headers)).data);
    expect(theirs.body.data).toMatchObject({ contentTypes: { data: [{ name: 'Hive' }] } });
  });

  it('refuses a forged principal header, anonymous queries and bad credentials — through Hive and at each subgraph', async () => {
    const query = `{ contentTypes(${SCOPE}) { data { name } } }`;
    for (const headers of [
      { 'x-cp-principal': 'forged' },
      {},
      { authorization: 'Bearer nope' },
      { 'x-api-key': 'cpk_live_nope' },
    ] as Record<string, string>[]) {
      const theirs = await viaHive(query, headers);
      expect(theirs.body.data?.contentTypes ?? null).toBeNull();
      expect(JSON.stringify(theirs.body)).not.toContain('Hive');
    }
    const content = stack.service('content').url;
    const post = (body: unknown, headers: Record<string, string> = {}) =>
      fetch(content, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
    for (const headers of [{ 'x-cp-principal': 'forged' }, {}, { authorization: 'Bearer nope' }] as Record<
      string,
      string
    >[]) {
      const res = await post({ query }, headers);
      expect(res.status).toBe(401);
      expect((await res.json()).errors[0].extensions.code).toBe('UNAUTHORIZED');
    }
    // Introspection is not for anonymous callers either; composition (`_service { sdl }`) stays open.
    expect((await post({ query: '{ __schema { types { name } } }' })).status).toBe(401);
    const sdl = await post({ query: '{ _service { sdl } }' });
    expect(sdl.status).toBe(200);
    expect((await sdl.json()).data._service.sdl).toContain('type ContentType');
  });

  /** A subscription through Hive over SSE (what Hive serves by default); `messages` fills as data arrives. */
  const subscribeViaHive = async (query: string, headers: Record<string, string>) => {
    const abort = new AbortController();
    const res = await hive.fetch('http://hive.local/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
      body: JSON.stringify({ query }),
      signal: abort.signal,
    });
    expect(res.status).toBe(200);
    const messages: { data?: { events: { id: string; type: string; resourceId: string } }; errors?: unknown[] }[] = [];
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    void (async () => {
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
        if (done) return;
        buffer += value;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const data = buffer
            .slice(0, end)
            .split('\n')
            .find((line) => line.startsWith('data:'));
          buffer = buffer.slice(end + 2);
          if (data && data.length > 'data:'.length) messages.push(JSON.parse(data.slice('data:'.length)));
        }
      }
    })();
    return { messages, close: () => abort.abort() };
  };

  it.each([
    ['a JWT', () => ({ authorization: `Bearer ${token}` })],
    ['an API key', () => ({ 'x-api-key': apiKey })],
  ])('delivers a publish made through our gateway to a subscription through Hive (%s)', async (name, credentials) => {
    const query = 'subscription { events(projectId: "default", resourceType: "content-types") { id type resourceId } }';
    const sub = await subscribeViaHive(query, credentials());
    const api = new Client(stack.gateway.url);
    const published = async () => {
      const body = { name: `Live ${Math.random()}`, schema: { type: 'object' } };
      const created = await api.call('POST', `/app/v1${PROJECT}/content-types`, { token, body });
      const publish = await api.call('POST', `/app/v1${PROJECT}/content-types/${created.body.id}/publish`, { token });
      expect(publish.status).toBe(200);
      return created.body.id as string;
    };
    const types = () => sub.messages.map((m) => m.data?.events.type);
    const arrived = (id: string) =>
      sub.messages.some((m) => m.data?.events.resourceId === id && m.data.events.type === 'content-types.published');
    // Hive opens the subgraph's socket only once the subscription started: publish until one arrives.
    let id: string;
    const deadline = Date.now() + 20_000;
    do {
      id = await published();
      // Not arriving within 2 s is allowed here: the loop publishes again.
      await waitFor('a publish through Hive', () => arrived(id), { timeoutMs: 2_000, intervalMs: 100 }).catch(
        () => undefined,
      );
      expect(sub.messages.flatMap((m) => m.errors ?? [])).toEqual([]);
    } while (!arrived(id) && Date.now() < deadline);
    // Then one more, to see a publish delivered live end to end.
    id = await published();
    await waitFor('a live publish through Hive', () => arrived(id), { intervalMs: 100 });
    // Keys receive published-state events only: never the draft's creation.
    if (name === 'an API key') expect(types()).not.toContain('content-types.created');
    else expect(types()).toContain('content-types.created');
    sub.close();
  });

  it('refuses an anonymous subscription through Hive', async () => {
    const sub = await subscribeViaHive('subscription { events(projectId: "default") { id } }', {});
    await waitFor('an answer through Hive', () => sub.messages.length > 0, { intervalMs: 100 });
    expect(sub.messages.some((m) => m.data?.events)).toBe(false);
    expect(sub.messages[0].errors?.length).toBeGreaterThan(0);
    sub.close();
  });

  it('replays a retried mutation through Hive: one entry, the same ids (the key reaches the subgraph service)', async () => {
    const headers = { authorization: `Bearer ${token}`, 'idempotency-key': `hive-${Date.now()}` };
    const query = `mutation { createTag(${SCOPE}, input: { name: "hive-retried" }) { id name } }`;
    const answers = [await viaHive(query, headers), await viaHive(query, headers), await viaHive(query, headers)];
    expect(answers[0].body.errors, JSON.stringify(answers[0].body.errors)).toBeUndefined();
    for (const answer of answers) expect(answer.body).toEqual(answers[0].body);
    const tags = await viaOurs(`{ tags(${SCOPE}, search: "hive-retried") { pagination { total } } }`, headers);
    expect(tags.data).toEqual({ tags: { pagination: { total: 1 } } });
    // Another mutation under the same key is refused by the subgraph service (422), and creates nothing.
    const other = await viaHive(query.replace('hive-retried', 'hive-other'), headers);
    expect(other.body.errors?.[0]?.extensions?.code).toBe('IDEMPOTENCY_KEY_REUSED');
    const none = await viaOurs(`{ tags(${SCOPE}, search: "hive-other") { pagination { total } } }`, headers);
    expect(none.data).toEqual({ tags: { pagination: { total: 0 } } });
  });

  it('replays a mutation Hive fans out to two subgraphs under one key: each service keeps its own part', async () => {
    const headers = { authorization: `Bearer ${token}`, 'idempotency-key': `hive-fan-${Date.now()}` };
    const query = `mutation {
      createTag(${SCOPE}, input: { name: "hive-fan" }) { id name }
      createApiKey(${SCOPE}, input: { name: "hive-fan" }) { id name }
    }`;
    const first = await viaHive(query, headers);
    expect(first.body.errors, JSON.stringify(first.body.errors)).toBeUndefined();
    const retry = await viaHive(query, headers);
    expect(retry.body).toEqual(first.body);
    const tags = await viaOurs(`{ tags(${SCOPE}, search: "hive-fan") { pagination { total } } }`, headers);
    expect(tags.data).toEqual({ tags: { pagination: { total: 1 } } });
  });

  it('lets a client sign in through Hive (anonymous login is the one open mutation, on the anonymous budget)', async () => {
    const res = await viaHive(
      'mutation { login(input: { email: "admin@example.com", password: "correct horse battery staple" }) { token } }',
      {},
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data).toMatchObject({ login: { token: expect.any(String) } });
  });
});
