// Black-box: the standalone content service serves `subscription { events }` over graphql-ws at its own /graphql (what
// Hive Gateway, Apollo Router and Cosmo connect to): credentials as over its HTTP side, keys see published-state events
// only, revocation closes the socket, and with two replicas on one PostgreSQL every subscriber gets every event once.
import { signPrincipal, type Principal } from '@cp/graphql';
import { createPostgresDatabase } from '@cp/db/testing';
import fc from 'fast-check';
import { createClient } from 'graphql-ws';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { Client, PROJECT } from './support/client';
import { freePort, JWT_SECRET, spawnNode, startService, SUBGRAPH_SECRET } from './support/service';
import type { Process, TestService } from './support/service';
import { waitFor } from './support/wait';

const ORG = '/app/v1/organizations/default';
const TYPES = `/app/v1${PROJECT}/content-types`;
const EVENTS = 'subscription { events(projectId: "default") { id type } }';
/** Generous for a loaded machine; delivery normally takes tens of milliseconds. */
const DEADLINE_MS = 15_000;
/** How long a fence waits before the next: well above delivery's tens of milliseconds, even on a loaded machine. */
const FENCE_RETRY_MS = 2_000;
const RUNS = Number(process.env.FC_RUNS ?? 4);
const SEED = Number(process.env.FC_SEED ?? 20261125);
const LIMITS = { RATE_LIMIT_PER_MINUTE: '100000', RATE_LIMIT_PER_HOUR: '1000000', EMBEDDINGS: 'off' };
/** Event types API keys may see of content types: publish, unpublish, and delete (of a published one only). */
const PUBLISHED_STATE = new Set(['content-types.published', 'content-types.unpublished', 'content-types.deleted']);

interface Received {
  id: string;
  type: string;
}

interface Credentials {
  /** The `connection_init` payload. */
  params?: Record<string, unknown>;
  /** Headers of the upgrade request. */
  headers?: Record<string, string>;
}

/** A graphql-ws connection to `url` with one `events` subscription. */
function subscribe(url: string, auth: Credentials, query = EVENTS) {
  const events: Received[] = [];
  const errors: unknown[] = [];
  let onClosed!: (code: number) => void;
  const closed = new Promise<number>((resolve) => (onClosed = resolve));
  class WithHeaders extends WebSocket {
    constructor(address: string, protocols?: string | string[]) {
      super(address, protocols, { headers: auth.headers });
    }
  }
  const client = createClient({
    url: url.replace(/^http/, 'ws'),
    webSocketImpl: WithHeaders,
    connectionParams: auth.params,
    retryAttempts: 0,
    lazy: false,
    onNonLazyError: () => undefined,
    on: { closed: (e) => onClosed((e as { code: number }).code) },
  });
  client.subscribe<{ events: Received }>(
    { query },
    {
      next: (r) => (r.data ? events.push(r.data.events) : errors.push(r.errors)),
      error: (e) => errors.push(e),
      complete: () => undefined,
    },
  );
  const stillOpen = (ms: number) =>
    new Promise<number>((_, reject) => setTimeout(() => reject(new Error('the socket is still open')), ms));
  return {
    events,
    errors,
    /** The close code, or a rejection when the socket is still open after `ms`. */
    closed: (ms = DEADLINE_MS) => Promise.race([closed, stillOpen(ms)]),
    dispose: () => client.dispose(),
  };
}
type Subscriber = ReturnType<typeof subscribe>;

describe('subscriptions at the standalone content service (two replicas, one PostgreSQL)', () => {
  let ours: TestService;
  const replicas: Process[] = [];
  let api: Client;
  let admin: string;
  let drop: () => Promise<void>;

  const asAdmin = (body?: unknown) => ({ token: admin, body });

  async function apiKey() {
    const created = await api.call('POST', `/app/v1${PROJECT}/api-keys`, asAdmin({ name: `k-${randomUUID()}` }));
    expect(created.status).toBe(201);
    return { key: created.body.key as string, id: created.body.id as string };
  }

  async function createType(): Promise<string> {
    const created = await api.call('POST', TYPES, asAdmin({ name: `t-${randomUUID()}`, schema: { type: 'object' } }));
    expect(created.status).toBe(201);
    return created.body.id;
  }

  /**
   * Publishes a new content type through our gateway until one publish event reached every subscriber, and returns
   * that event's id. A subscription is live once the server has registered it, a moment after `subscribe` returns:
   * an event published before then is not one it may expect, so a fence it missed is followed by another.
   */
  async function fence(subscribers: Subscriber[]): Promise<string> {
    const deadline = Date.now() + DEADLINE_MS;
    for (;;) {
      const id = await createType();
      expect((await api.call('POST', `${TYPES}/${id}/publish`, asAdmin())).status).toBe(200);
      const published = (await eventLog('app')).findLast((e) => e.type === 'content-types.published')!;
      const reached = () => subscribers.every((s) => s.events.some((e) => e.id === published.id));
      const timeoutMs = Math.max(0, Math.min(FENCE_RETRY_MS, deadline - Date.now()));
      try {
        await waitFor('the fence event', reached, { timeoutMs, intervalMs: 25 });
        return published.id;
      } catch (err) {
        if (Date.now() >= deadline) throw err;
      }
    }
  }

  /** The project's stored event log as the admin (`app`) or an API key (`api`) reads it over REST, oldest first. */
  async function eventLog(family: 'app' | 'api', key?: string): Promise<Received[]> {
    const all: Received[] = [];
    let lastKey: string | undefined;
    do {
      const cursor = lastKey ? `&lastKey=${encodeURIComponent(lastKey)}` : '';
      const path = `/${family}/v1${PROJECT}/events?limit=100${cursor}`;
      const page = await api.call('GET', path, key ? { apiKey: key } : asAdmin());
      expect(page.status).toBe(200);
      all.push(...page.body.data.map(({ id, type }: Received) => ({ id, type })));
      lastKey = page.body.pagination.lastKey;
    } while (lastKey);
    return all;
  }

  beforeAll(async () => {
    const db = await createPostgresDatabase();
    drop = db.drop;
    // Our gateway migrates the database and creates the admin; the two content services are the replicas under test.
    ours = await startService({ databaseUrl: db.url, env: LIMITS });
    for (let i = 0; i < 2; i++) {
      const port = String(await freePort());
      const env = { DATABASE_URL: db.url, JWT_SECRET, SUBGRAPH_SECRET, SUBGRAPH_PORT: port, ...LIMITS };
      replicas.push(await spawnNode('subgraphs/content/dist/main.js', env, /subgraph content listening/));
    }
    api = new Client(ours.url);
    admin = await api.login();
  }, 240_000);

  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
    await ours?.destroy();
    await drop?.();
  });

  it('refuses anonymous (4401) and bad credentials (4403), and queries over the socket', async () => {
    const url = replicas[0].url;
    expect(await subscribe(url, {}).closed()).toBe(4401);
    expect(await subscribe(url, { params: { 'x-api-key': 'cpk_live_nope' } }).closed()).toBe(4403);
    expect(await subscribe(url, { headers: { authorization: 'Bearer nope' } }).closed()).toBe(4403);
    expect(await subscribe(url, { headers: { 'x-cp-principal': 'forged', 'x-request-id': 'r1' } }).closed()).toBe(4403);
    const query = subscribe(url, { params: { authorization: `Bearer ${admin}` } }, '{ __typename }');
    await waitFor('the refusal', () => query.errors.length > 0, { timeoutMs: DEADLINE_MS, intervalMs: 25 });
    expect(JSON.stringify(query.errors)).toContain('Only subscriptions');
    query.dispose();
  });

  it('takes credentials from upgrade headers, nested connectionParams and our gateway’s signed principal', async () => {
    const { key } = await apiKey();
    const principal = { kind: 'apiKey', keyId: 'k', organizationId: 'default', projectId: 'default' } as Principal;
    const secret = new TextEncoder().encode(SUBGRAPH_SECRET);
    const signed = await signPrincipal(principal, secret, { subgraph: 'content', requestId: 'r2' });
    const bearer = `Bearer ${admin}`;
    const subscribers = [
      subscribe(replicas[0].url, { headers: { 'x-api-key': key } }),
      subscribe(replicas[1].url, { headers: { authorization: bearer } }),
      subscribe(replicas[1].url, { headers: { 'x-cp-principal': signed, 'x-request-id': 'r2' } }),
      // Apollo Router: propagated headers on the upgrade request, `{ connectionParams: { token } }` as payload, or a
      // custom payload (Rhai) nested the same way.
      subscribe(replicas[0].url, {
        headers: { authorization: bearer },
        params: { connectionParams: { token: bearer } },
      }),
      subscribe(replicas[1].url, { params: { connectionParams: { 'x-api-key': key } } }),
    ];
    await fence(subscribers);
    // Signed for another request id: a replay.
    const replay = subscribe(replicas[0].url, { params: { 'x-cp-principal': signed, 'x-request-id': 'other' } });
    expect(await replay.closed()).toBe(4403);
    subscribers.forEach((s) => s.dispose());
  });

  it('closes sockets with 4403 when their key is revoked or their user demoted; others stay open', async () => {
    const { key, id } = await apiKey();
    const permissions = { projects: { read: true }, contentTypes: { read: true } };
    const role = await api.call('POST', `${ORG}/roles`, asAdmin({ name: `r-${randomUUID()}`, permissions }));
    const email = `${randomUUID()}@subscriptions.example`;
    const password = 'a long enough passphrase 7';
    const user = await api.call('POST', `${ORG}/users`, asAdmin({ email, name: 'U', password, roleId: role.body.id }));
    expect(user.status).toBe(201);
    const keySocket = subscribe(replicas[1].url, { params: { 'x-api-key': key } });
    const userToken = await api.login(email, password);
    const userSocket = subscribe(replicas[0].url, { headers: { authorization: `Bearer ${userToken}` } });
    const survivor = subscribe(replicas[1].url, { params: { authorization: `Bearer ${admin}` } });
    await fence([keySocket, userSocket, survivor]);
    expect((await api.call('POST', `/app/v1${PROJECT}/api-keys/${id}/revoke`, asAdmin())).status).toBe(200);
    // Without projects.read the user may no longer read the project's events.
    const demoted = { permissions: { contentTypes: { read: true } } };
    expect((await api.call('PUT', `${ORG}/roles/${role.body.id}`, asAdmin(demoted))).status).toBe(200);
    expect(await keySocket.closed()).toBe(4403);
    expect(await userSocket.closed()).toBe(4403);
    await expect(survivor.closed(1_000)).rejects.toThrow('still open');
    survivor.dispose();
  });

  it('gives every subscriber on either replica exactly the events it may see, in order, once (property)', async () => {
    const { key } = await apiKey();
    const op = fc.record({
      action: fc.constantFrom('create', 'publish', 'unpublish', 'update', 'delete'),
      target: fc.nat(),
      // Writes reach the log through our gateway (REST) or straight through either content replica (GraphQL).
      via: fc.constantFrom('gateway', 0, 1),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 10 }), async (ops) => {
        const subscribers = [0, 1].flatMap((r) => [
          subscribe(replicas[r].url, { params: { authorization: `Bearer ${admin}` } }),
          subscribe(replicas[r].url, { params: { 'x-api-key': key } }),
        ]);
        try {
          const from = await fence(subscribers);
          const ids: string[] = [];
          for (const { action, target, via } of ops) {
            const id = ids[target % Math.max(ids.length, 1)];
            if (action === 'create' || !id) {
              ids.push(await createType());
              continue;
            }
            const direct = typeof via === 'number' ? new Client(replicas[via].url.replace(/\/graphql$/, '')) : null;
            const res = direct ? await direct.graphql(MUTATIONS[action], { id }, asAdmin()) : await write(action, id);
            expect(res.status).toBeLessThan(500);
          }
          const to = await fence(subscribers);
          // Anything delivered twice or late would arrive within moments of the fence.
          await new Promise((r) => setTimeout(r, 300));
          const window = (list: Received[]) =>
            list.slice(list.findIndex((e) => e.id === from) + 1, list.findIndex((e) => e.id === to) + 1);
          const everything = window(await eventLog('app'));
          const published = window(await eventLog('api', key));
          // The key's log is the published-state part of the admin's (drafts' creations and edits never in it).
          expect(published.every((e) => PUBLISHED_STATE.has(e.type))).toBe(true);
          expect(published).toEqual(everything.filter((e) => published.some((p) => p.id === e.id)));
          for (const [i, s] of subscribers.entries()) {
            const received = s.events.slice(s.events.findIndex((e) => e.id === from) + 1);
            expect(received, `subscriber ${i}`).toEqual(i % 2 === 0 ? everything : published);
          }
        } finally {
          subscribers.forEach((s) => s.dispose());
        }
      }),
      { numRuns: RUNS, seed: SEED },
    );
  }, 600_000);

  function write(action: keyof typeof MUTATIONS, id: string) {
    if (action === 'update') return api.call('PUT', `${TYPES}/${id}`, asAdmin({ description: 'changed' }));
    if (action === 'delete') return api.call('DELETE', `${TYPES}/${id}`, asAdmin());
    return api.call('POST', `${TYPES}/${id}/${action}`, asAdmin());
  }
});

const SCOPE = 'organizationId: "default", projectId: "default", id: $id';
const MUTATIONS = {
  publish: `mutation($id: ID!) { publishContentType(${SCOPE}) { id } }`,
  unpublish: `mutation($id: ID!) { unpublishContentType(${SCOPE}) { id } }`,
  update: `mutation($id: ID!) { updateContentType(${SCOPE}, input: { description: "changed" }) { id } }`,
  delete: `mutation($id: ID!) { deleteContentType(${SCOPE}) { id } }`,
} as const;
