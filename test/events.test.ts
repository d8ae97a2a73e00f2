// Black-box: the event API, SSE with resume, graphql-ws subscriptions, fan-out across replicas, and no loss on kill -9.
import { createPostgresDatabase } from '@cp/db/testing';
import { createClient, type Client as WsClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { Client, PROJECT } from './support/client';
import { startService, type TestService } from './support/service';
import { useService } from './support/setup';
import { openSse } from './support/sse';

const schema = { type: 'object' };
const app = `/app/v1${PROJECT}`;
const component = (name: string) => ({
  name,
  type: 'view',
  content: `export function metadata() { return { title: '${name}', description: '' }; }\nexport default () => '';`,
});

function wsClient(url: string, connectionParams: Record<string, string>): WsClient {
  return createClient({
    url: url.replace(/^http/, 'ws') + '/graphql',
    webSocketImpl: WebSocket,
    connectionParams,
    retryAttempts: 0,
    lazy: false,
  });
}

/** Collects events of one subscription until `count` arrived. */
function subscribeEvents(client: WsClient, variables: Record<string, unknown>) {
  const received: any[] = [];
  let error: unknown;
  const dispose = client.subscribe(
    {
      query:
        'subscription($p: ID!, $t: String) { events(projectId: $p, resourceType: $t) { id type resourceType resourceId projectId version occurredAt } }',
      variables,
    },
    { next: (msg) => received.push(msg.data?.events), error: (e) => (error = e), complete: () => undefined },
  );
  return {
    received,
    dispose,
    async waitFor(count: number, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (error) throw error;
        if (Date.now() > deadline) throw new Error(`expected ${count} events, got ${received.length}`);
        await new Promise((r) => setTimeout(r, 25));
      }
      return received;
    },
  };
}

const closeCode = (url: string, params: Record<string, string>) =>
  new Promise<number>((resolve) => {
    const client = createClient({
      url: url.replace(/^http/, 'ws') + '/graphql',
      webSocketImpl: WebSocket,
      connectionParams: params,
      retryAttempts: 0,
      lazy: false,
      onNonLazyError: () => undefined,
      on: { closed: (e) => resolve((e as { code: number }).code) },
    });
    client.subscribe(
      { query: 'subscription { events(projectId: "default") { id } }' },
      { next: () => undefined, error: () => undefined, complete: () => undefined },
    );
  });

describe('events', () => {
  const fx = useService();
  let key: string;

  beforeAll(async () => {
    const created = await fx.api.call('POST', `${app}/api-keys`, { token: fx.token, body: { name: 'events' } });
    key = created.body.key;
  });

  it('lists events oldest first with filters and cursor pagination, over REST and GraphQL', async () => {
    const a = (await fx.api.call('POST', `${app}/content-types`, { token: fx.token, body: { name: 'EvA', schema } }))
      .body;
    await fx.api.call('POST', `${app}/content-types`, { token: fx.token, body: { name: 'EvB', schema } });
    await fx.api.call('PUT', `${app}/content-types/${a.id}`, { token: fx.token, body: { description: 'x' } });

    const all = await fx.api.call('GET', `${app}/content-types/events`, { token: fx.token });
    expect(all.status).toBe(200);
    expect(all.body.data.map((e: any) => e.type)).toEqual([
      'content-types.created',
      'content-types.created',
      'content-types.updated',
    ]);
    expect(all.body.data[0]).toEqual({
      id: expect.any(String),
      type: 'content-types.created',
      resourceType: 'content-types',
      resourceId: a.id,
      projectId: 'default',
      version: null,
      occurredAt: expect.any(String),
      actorId: expect.any(String),
    });

    const one = await fx.api.call('GET', `${app}/content-types/${a.id}/events`, { token: fx.token });
    expect(one.body.data.map((e: any) => e.type)).toEqual(['content-types.created', 'content-types.updated']);
    const updates = await fx.api.call('GET', `${app}/events?type=content-types.updated`, { token: fx.token });
    expect(updates.body.data).toHaveLength(1);

    const first = await fx.api.call('GET', `${app}/content-types/events?limit=2`, { token: fx.token });
    expect(first.body.data).toHaveLength(2);
    const rest = await fx.api.call(
      'GET',
      `${app}/content-types/events?limit=2&lastKey=${encodeURIComponent(first.body.pagination.lastKey)}`,
      { token: fx.token },
    );
    expect(rest.body.data.map((e: any) => e.type)).toEqual(['content-types.updated']);
    expect(rest.body.pagination).toEqual({});
    expect((await fx.api.call('GET', `${app}/nonsense/events`, { token: fx.token })).status).toBe(404);

    const gql = await fx.api.graphql(
      `{ events(organizationId: "default", projectId: "default", resourceType: "content-types", limit: 100) { data { type resourceId } } }`,
      {},
      { token: fx.token },
    );
    expect(gql.body.data.events.data.map((e: any) => e.type)).toEqual(all.body.data.map((e: any) => e.type));
  });

  it('shows API keys published-state events only, on /api/v1', async () => {
    await fx.api.call('POST', `${app}/components`, { token: fx.token, body: component('EvHero') });
    await fx.api.call('POST', `${app}/packages`, { token: fx.token });
    const res = await fx.api.call('GET', `/api/v1${PROJECT}/events?limit=100`, { apiKey: key });
    expect(res.status).toBe(200);
    const types = new Set(res.body.data.map((e: any) => e.type));
    expect(types).toEqual(new Set(['components.published', 'packages.created']));
    expect((await fx.api.call('GET', `${app}/events`, { apiKey: key })).status).toBe(401);
    expect(
      (await fx.api.call('GET', `/api/v1/organizations/default/projects/other/events`, { apiKey: key })).status,
    ).toBe(404);
  });

  it('streams Server-Sent Events and resumes from Last-Event-ID with no gap and no duplicate', async () => {
    const url = `${fx.service.url}${app}/content-types/events`;
    const auth = { authorization: `Bearer ${fx.token}` };
    const live = await openSse(url, auth);
    await fx.api.call('POST', `${app}/content-types`, { token: fx.token, body: { name: 'Sse1', schema } });
    const [first] = await live.take(1);
    expect(first).toMatchObject({ event: 'content-types.created', data: { type: 'content-types.created' } });
    live.close();

    for (const name of ['Sse2', 'Sse3'])
      await fx.api.call('POST', `${app}/content-types`, { token: fx.token, body: { name, schema } });
    const resumed = await openSse(url, { ...auth, 'last-event-id': first.id! });
    await fx.api.call('POST', `${app}/content-types`, { token: fx.token, body: { name: 'Sse4', schema } });
    const next = await resumed.take(3);
    resumed.close();
    const names = await Promise.all(
      next.map(
        async (e) =>
          (await fx.api.call('GET', `${app}/content-types/${e.data.resourceId}`, { token: fx.token })).body.name,
      ),
    );
    expect(names).toEqual(['Sse2', 'Sse3', 'Sse4']);
  });

  it('delivers GraphQL subscriptions over graphql-ws; refuses missing (4401) and bad (4403) credentials', async () => {
    const client = wsClient(fx.service.url, { authorization: `Bearer ${fx.token}` });
    const sub = subscribeEvents(client, { p: 'default', t: 'content-types' });
    await new Promise((r) => setTimeout(r, 300));
    const created = (
      await fx.api.call('POST', `${app}/content-types`, { token: fx.token, body: { name: 'Ws1', schema } })
    ).body;
    const [event] = await sub.waitFor(1);
    expect(event).toMatchObject({
      type: 'content-types.created',
      resourceId: created.id,
      projectId: 'default',
      resourceType: 'content-types',
    });
    sub.dispose();
    await client.dispose();

    const keyClient = wsClient(fx.service.url, { 'x-api-key': key });
    const keySub = subscribeEvents(keyClient, { p: 'default' });
    await new Promise((r) => setTimeout(r, 300));
    await fx.api.call('POST', `${app}/content-types`, { token: fx.token, body: { name: 'Ws2', schema } });
    await fx.api.call('POST', `${app}/components`, { token: fx.token, body: component('WsCard') });
    await fx.api.call('POST', `${app}/packages`, { token: fx.token });
    const received = await keySub.waitFor(2);
    expect(received.map((e) => e.type).sort()).toEqual(['components.published', 'packages.created']);
    keySub.dispose();
    await keyClient.dispose();

    expect(await closeCode(fx.service.url, {})).toBe(4401);
    expect(await closeCode(fx.service.url, { 'x-api-key': 'cpk_live_wrong' })).toBe(4403);
  });

  it('answers failing queries, mutations and a conditional subscription root as errors, and the socket stays open', async () => {
    let closed: number | undefined;
    const client = createClient({
      url: fx.service.url.replace(/^http/, 'ws') + '/graphql',
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${fx.token}` },
      retryAttempts: 0,
      lazy: false,
      on: { closed: (e) => (closed = (e as { code: number }).code) },
    });
    const sub = subscribeEvents(client, { p: 'default', t: 'tags' });
    await new Promise((r) => setTimeout(r, 300));
    const once = (query: string) =>
      new Promise<{ errors?: { message: string; extensions?: { code?: string } }[] }>((resolve) => {
        let result: unknown;
        client.subscribe(
          { query },
          {
            next: (r) => (result = r),
            error: (e) => resolve({ errors: e as never }),
            complete: () => resolve(result as never),
          },
        );
      });
    const missing = await once('{ tag(organizationId: "default", projectId: "default", id: "nope") { id } }');
    expect(missing.errors?.[0].extensions?.code).toBe('NOT_FOUND');
    await once(
      'mutation { createTag(organizationId: "default", projectId: "default", input: { name: "ws-dup" }) { id } }',
    );
    const duplicate = await once(
      'mutation { createTag(organizationId: "default", projectId: "default", input: { name: "ws-dup" }) { id } }',
    );
    expect(duplicate.errors?.[0].extensions?.code).toBe('NAME_TAKEN');
    const skipped = await once('subscription { events(projectId: "default") @skip(if: true) { id } }');
    expect(skipped.errors?.[0].extensions?.code).toBe('BAD_REQUEST');
    // The other subscription on the socket still delivers.
    await fx.api.call('POST', `${app}/tags`, { token: fx.token, body: { name: 'ws-after' } });
    const events = await sub.waitFor(2);
    expect(events.map((e) => e.type)).toEqual(['tags.created', 'tags.created']);
    expect(closed).toBeUndefined();
    sub.dispose();
    await client.dispose();
  });
});

/** A raw WebSocket on /graphql speaking graphql-ws's subprotocol; resolves with the close code once the server closes it. */
function rawSocket(url: string) {
  const socket = new WebSocket(url.replace(/^http/, 'ws') + '/graphql', 'graphql-transport-ws');
  const opened = new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
  socket.on('error', () => undefined);
  return { socket, opened, closed };
}

describe('WebSocket limits before authentication', () => {
  const fx = useService();

  it('closes a socket that sends a frame above 64 KiB (1009), before it is buffered in full', async () => {
    const { socket, opened, closed } = rawSocket(fx.service.url);
    await opened;
    socket.send(JSON.stringify({ type: 'connection_init', payload: { junk: 'x'.repeat(1024 * 1024) } }));
    expect(await closed).toBe(1009);
    // A normal connection still works.
    const ok = rawSocket(fx.service.url);
    await ok.opened;
    ok.socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${fx.token}` } }));
    const ack = await new Promise<string>((resolve) => ok.socket.once('message', (data) => resolve(String(data))));
    expect(JSON.parse(ack).type).toBe('connection_ack');
    ok.socket.close();
  });

  it('closes a socket that never sends connection_init (4408)', async () => {
    const { opened, closed } = rawSocket(fx.service.url);
    await opened;
    expect(await closed).toBe(4408);
  });
});

describe('events across replicas and crashes (real PostgreSQL)', () => {
  let a: TestService;
  let b: TestService;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const db = await createPostgresDatabase();
    drop = db.drop;
    a = await startService({ databaseUrl: db.url });
    b = await startService({ databaseUrl: db.url });
  });
  afterAll(async () => {
    await Promise.all([a?.destroy(), b?.destroy()]);
    await drop?.();
  });

  it('delivers a change made through replica A to a subscriber on replica B', async () => {
    const token = await new Client(a.url).login();
    const client = wsClient(b.url, { authorization: `Bearer ${token}` });
    const sub = subscribeEvents(client, { p: 'default', t: 'content-types' });
    await new Promise((r) => setTimeout(r, 300));
    const created = (
      await new Client(a.url).call('POST', `${app}/content-types`, { token, body: { name: 'Replica', schema } })
    ).body;
    const [event] = await sub.waitFor(1);
    expect(event.resourceId).toBe(created.id);
    sub.dispose();
    await client.dispose();
  });

  it('loses no event when the process is killed right after a commit', async () => {
    const api = new Client(a.url);
    const token = await api.login();
    const created = (await api.call('POST', `${app}/content-types`, { token, body: { name: 'Crash', schema } })).body;
    await a.stop('SIGKILL');
    const events = await new Client(b.url).call('GET', `${app}/content-types/${created.id}/events`, { token });
    const deadline = Date.now() + 5000;
    let found = events.body.data;
    while (found.length === 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      found = (await new Client(b.url).call('GET', `${app}/content-types/${created.id}/events`, { token })).body.data;
    }
    expect(found.map((e: any) => e.type)).toEqual(['content-types.created']);
  });
});

describe('graphql-ws shares the rate-limit budget', () => {
  const fx = useService({ env: { RATE_LIMIT_PER_MINUTE: '3' } });

  it('counts the connection and every subscription; over budget is RATE_LIMITED, then 4429', async () => {
    const client = wsClient(fx.service.url, { authorization: `Bearer ${fx.token}` });
    const codes: (string | undefined)[] = [];
    for (let i = 0; i < 3; i++) {
      codes.push(
        await new Promise<string | undefined>((resolve) => {
          const dispose = client.subscribe(
            { query: 'subscription { events(projectId: "default") { id } }' },
            {
              next: () => undefined,
              error: (e: any) => resolve(Array.isArray(e) ? e[0]?.extensions?.code : 'closed'),
              complete: () => resolve('complete'),
            },
          );
          setTimeout(() => (dispose(), resolve(undefined)), 500);
        }),
      );
    }
    expect(codes).toEqual([undefined, undefined, 'RATE_LIMITED']);
    await client.dispose();
    expect(await closeCode(fx.service.url, { authorization: `Bearer ${fx.token}` })).toBe(4429);
  });
});
