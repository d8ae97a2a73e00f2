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
import { freePort, JWT_SECRET, spawnNode, startService, SUBGRAPH_SECRET, type Process, type TestService } from './support/service';

const ORG = '/app/v1/organizations/default';
const EVENTS = 'subscription { events(projectId: "default") { id type } }';
/** Generous for a loaded machine; delivery normally takes tens of milliseconds. */
const DEADLINE_MS = 15_000;
const RUNS = Number(process.env.FC_RUNS ?? 4);
const SEED = Number(process.env.FC_SEED ?? 20261125);
const LIMITS = { RATE_LIMIT_PER_MINUTE: '100000', RATE_LIMIT_PER_HOUR: '1000000', EMBEDDINGS: 'off' };
/** Event types API keys may see of content types (D9): publish, unpublish, and delete (of a published one only). */
const PUBLISHED_STATE = new Set(['content-types.published', 'content-types.unpublished', 'content-types.deleted']);

interface Received {
  id: string;
  type: string;
}

/** A graphql-ws connection to `url` with one `events` subscription; credentials in connectionParams or upgrade headers. */
function subscribe(url: string, auth: { params?: Record<string, unknown>; headers?: Record<string, string> }, query = EVENTS) {
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
    { next: (r) => (r.data ? events.push(r.data.events) : errors.push(r.errors)), error: (e) => errors.push(e), complete: () => undefined },
  );
  return {
    events,
    errors,
    /** The close code, or a rejection when the socket is still open at the deadline. */
    closed: (ms = DEADLINE_MS) => Promise.race([closed, new Promise<number>((_, reject) => setTimeout(() => reject(new Error('the socket is still open')), ms))]),
    dispose: () => client.dispose(),
  };
}
type Subscriber = ReturnType<typeof subscribe>;

async function until(what: string, done: () => boolean) {
  const started = Date.now();
  while (!done()) {
    if (Date.now() - started > DEADLINE_MS) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('subscriptions at the standalone content service (two replicas, one PostgreSQL)', () => {
  let ours: TestService;
  let replicas: Process[] = [];
  let api: Client;
  let admin: string;
  let drop: () => Promise<void>;

  async function apiKey() {
    const created = await api.call('POST', `/app/v1${PROJECT}/api-keys`, { token: admin, body: { name: `k-${randomUUID()}` } });
    expect(created.status).toBe(201);
    return { key: created.body.key as string, id: created.body.id as string };
  }

  /** Creates and publishes a content type through our gateway; returns the publish event's id once `subscribers` got it. */
  async function fence(subscribers: Subscriber[]): Promise<string> {
    const created = await api.call('POST', `/app/v1${PROJECT}/content-types`, { token: admin, body: { name: `f-${randomUUID()}`, schema: { type: 'object' } } });
    expect((await api.call('POST', `/app/v1${PROJECT}/content-types/${created.body.id}/publish`, { token: admin })).status).toBe(200);
    const log = await eventLog('app');
    const published = log.findLast((e) => e.type === 'content-types.published')!;
    await until('the fence event', () => subscribers.every((s) => s.events.some((e) => e.id === published.id)));
    return published.id;
  }

  /** The stored event log of the project as the admin (`app`) or an API key (`api`) reads it over REST, oldest first. */
  async function eventLog(family: 'app' | 'api', key?: string): Promise<Received[]> {
    const all: Received[] = [];
    let lastKey: string | undefined;
    do {
      const page = await api.call('GET', `/${family}/v1${PROJECT}/events?limit=100${lastKey ? `&lastKey=${encodeURIComponent(lastKey)}` : ''}`, family === 'app' ? { token: admin } : { apiKey: key });
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
      const env = { DATABASE_URL: db.url, JWT_SECRET, SUBGRAPH_SECRET, SUBGRAPH_PORT: String(await freePort()), ...LIMITS };
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
    await until('the refusal', () => query.errors.length > 0);
    expect(JSON.stringify(query.errors)).toContain('Only subscriptions');
    query.dispose();
  });

  it('takes credentials from the upgrade headers, nested connectionParams and our gateway’s signed principal', async () => {
    const { key } = await apiKey();
    const principal: Principal = { kind: 'apiKey', keyId: 'k', organizationId: 'default', projectId: 'default' } as Principal;
    const signed = await signPrincipal(principal, new TextEncoder().encode(SUBGRAPH_SECRET), { subgraph: 'content', requestId: 'r2' });
    const subscribers = [
      subscribe(replicas[0].url, { headers: { 'x-api-key': key } }),
      subscribe(replicas[1].url, { headers: { authorization: `Bearer ${admin}` } }),
      subscribe(replicas[1].url, { headers: { 'x-cp-principal': signed, 'x-request-id': 'r2' } }),
      // Apollo Router: propagated headers on the upgrade request, `{ connectionParams: { token } }` as payload, or a
      // custom payload (Rhai) nested the same way.
      subscribe(replicas[0].url, { headers: { authorization: `Bearer ${admin}` }, params: { connectionParams: { token: `Bearer ${admin}` } } }),
      subscribe(replicas[1].url, { params: { connectionParams: { 'x-api-key': key } } }),
    ];
    await fence(subscribers);
    // Signed for another request id: a replay.
    expect(await subscribe(replicas[0].url, { params: { 'x-cp-principal': signed, 'x-request-id': 'other' } }).closed()).toBe(4403);
    subscribers.forEach((s) => s.dispose());
  });

  it('closes sockets with 4403 when their key is revoked or their user demoted; others stay open', async () => {
    const { key, id } = await apiKey();
    const role = await api.call('POST', `${ORG}/roles`, { token: admin, body: { name: `r-${randomUUID()}`, permissions: { projects: { read: true }, contentTypes: { read: true } } } });
    const email = `${randomUUID()}@subscriptions.example`;
    const password = 'a long enough passphrase 7';
    expect((await api.call('POST', `${ORG}/users`, { token: admin, body: { email, name: 'U', password, roleId: role.body.id } })).status).toBe(201);
    const keySocket = subscribe(replicas[1].url, { params: { 'x-api-key': key } });
    const userSocket = subscribe(replicas[0].url, { headers: { authorization: `Bearer ${await api.login(email, password)}` } });
    const survivor = subscribe(replicas[1].url, { params: { authorization: `Bearer ${admin}` } });
    await fence([keySocket, userSocket, survivor]);
    expect((await api.call('POST', `/app/v1${PROJECT}/api-keys/${id}/revoke`, { token: admin })).status).toBe(200);
    // Without projects.read the user may no longer read the project's events.
    expect((await api.call('PUT', `${ORG}/roles/${role.body.id}`, { token: admin, body: { permissions: { contentTypes: { read: true } } } })).status).toBe(200);
    expect(await keySocket.closed()).toBe(4403);
    expect(await userSocket.closed()).toBe(4403);
    await expect(survivor.closed(1_000)).rejects.toThrow('still open');
    survivor.dispose();
  });

  it('gives every subscriber on either replica exactly the events it may see, in order, once (property)', async () => {
    const { key } = await apiKey();
    type Op = { action: 'create' | 'publish' | 'unpublish' | 'update' | 'delete'; target: number; via: 'gateway' | 0 | 1 };
    const op = fc.record({
      action: fc.constantFrom('create', 'publish', 'unpublish', 'update', 'delete'),
      target: fc.nat(),
      via: fc.constantFrom('gateway', 0, 1),
    }) as fc.Arbitrary<Op>;
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
              const created = await api.call('POST', `/app/v1${PROJECT}/content-types`, { token: admin, body: { name: `p-${randomUUID()}`, schema: { type: 'object' } } });
              expect(created.status).toBe(201);
              ids.push(created.body.id);
              continue;
            }
            // Writes reach the log through our gateway or straight through either content replica.
            const status =
              via === 'gateway'
                ? (await write(api, admin, action, id)).status
                : (await new Client(replicas[via].url.replace(/\/graphql$/, '')).graphql(MUTATIONS[action], { id }, { token: admin })).status;
            expect(status).toBeLessThan(500);
          }
          const to = await fence(subscribers);
          // Anything delivered twice or late would arrive within moments of the fence.
          await new Promise((r) => setTimeout(r, 300));
          const window = (list: Received[]) => list.slice(list.findIndex((e) => e.id === from) + 1, list.findIndex((e) => e.id === to) + 1);
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
});

const MUTATIONS = {
  publish: 'mutation($id: ID!) { publishContentType(organizationId: "default", projectId: "default", id: $id) { id } }',
  unpublish: 'mutation($id: ID!) { unpublishContentType(organizationId: "default", projectId: "default", id: $id) { id } }',
  update: 'mutation($id: ID!) { updateContentType(organizationId: "default", projectId: "default", id: $id, input: { description: "changed" }) { id } }',
  delete: 'mutation($id: ID!) { deleteContentType(organizationId: "default", projectId: "default", id: $id) { id } }',
} as const;

function write(api: Client, token: string, action: keyof typeof MUTATIONS, id: string) {
  const path = `/app/v1${PROJECT}/content-types/${id}`;
  if (action === 'update') return api.call('PUT', path, { token, body: { description: 'changed' } });
  if (action === 'delete') return api.call('DELETE', path, { token });
  return api.call('POST', `${path}/${action}`, { token });
}
