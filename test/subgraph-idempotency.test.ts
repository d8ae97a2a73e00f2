// Black-box: GraphQL mutations sent with `Idempotency-Key` straight to a standalone subgraph service (what a third-party
// federation gateway does with the client's credentials) answer like our gateway's: replay, 422, 409, no secrets.
import { allPermissions, signPrincipal, type Principal } from '@cp/graphql';
import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from './support/client';
import { SUBGRAPH_SECRET, type TestService } from './support/service';
import { startStandaloneStack, type StandaloneStack } from './support/standalone';

const SCOPE = 'organizationId: "default", projectId: "default"';
const RUNS = Number(process.env.FC_RUNS ?? 6);
const SEED = Number(process.env.FC_SEED ?? 17);

/** Mutation kinds, each with the service that owns it and a body per name (another name is another body). */
const KINDS = {
  createTag: {
    service: 'content',
    query: (name: string) => `mutation { createTag(${SCOPE}, input: { name: "${name}" }) { id name } }`,
  },
  createFolder: {
    service: 'content',
    query: (name: string) => `mutation { createFolder(${SCOPE}, input: { name: "${name}" }) { id name path } }`,
  },
  createApiKey: {
    service: 'access',
    query: (name: string) => `mutation { createApiKey(${SCOPE}, input: { name: "${name}" }) { id name key } }`,
  },
  issueToken: {
    service: 'access',
    // The name only tells bodies apart here (expiresIn 100–399 s).
    query: (name: string) =>
      `mutation { issueToken(input: { projectId: "default", expiresIn: ${100 + (name.length % 300)} }) { token } }`,
  },
} as const;
type Kind = keyof typeof KINDS;

interface Answer {
  status: number;
  body: { data?: Record<string, Record<string, unknown> | null>; errors?: { extensions?: { code?: string } }[] };
  replayed: string | null;
  contentType: string | null;
}

/** The answer with every data value reduced to its type (ids, names, secrets differ between addresses), errors kept. */
function shape(answer: Answer) {
  const types = (value: unknown): unknown =>
    value && typeof value === 'object'
      ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, types(v)]))
      : typeof value;
  return { ...answer, body: { ...answer.body, data: answer.body.data && types(answer.body.data) } };
}

describe('Idempotency-Key on GraphQL mutations at standalone subgraph services', () => {
  let stack: StandaloneStack;
  let gateway: TestService;
  let token: string;

  beforeAll(async () => {
    // Our gateway (in-process subgraphs) migrates and bootstraps; the services share its database.
    stack = await startStandaloneStack({
      gateway: 'beside',
      subgraphs: ['content', 'access'],
      env: { EMBEDDINGS: 'off' },
    });
    ({ gateway } = stack);
    token = await new Client(gateway.url).login();
  }, 240_000);

  afterAll(async () => {
    await stack?.stop();
  });

  const graphqlUrl = (at: 'gateway' | Kind) =>
    at === 'gateway' ? `${gateway.url}/graphql` : stack.service(KINDS[at].service).url;
  async function send(url: string, query: string, key?: string): Promise<Answer> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json',
      authorization: `Bearer ${token}`,
    };
    if (key !== undefined) headers['idempotency-key'] = key;
    const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ query }) });
    return {
      status: res.status,
      body: await res.json(),
      replayed: res.headers.get('idempotent-replayed'),
      contentType: res.headers.get('content-type'),
    };
  }
  const tagsNamed = async (name: string) => {
    const res = await send(
      `${gateway.url}/graphql`,
      `{ tags(${SCOPE}, search: ${JSON.stringify(name)}) { data { name } } }`,
    );
    return (res.body.data!.tags!.data as { name: string }[]).filter((t) => t.name === name).length;
  };

  it('answers a retried mutation, and another body under the same key, as our gateway does', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...(Object.keys(KINDS) as Kind[])),
        fc.stringMatching(/^[a-z][a-z0-9]{0,11}$/),
        async (kind, name) => {
          run++;
          // One key for both addresses: the service keeps its keys in its own key space (federation-gateways.md).
          const key = `parity-${run}-${randomUUID()}`;
          const at = async (url: string, where: string) => {
            const body = KINDS[kind].query(`${name}-${where}-${run}`);
            const first = await send(url, body, key);
            const retry = await send(url, body, key);
            const other = await send(url, KINDS[kind].query(`${name}-${where}-${run}x`), key);
            // The retry is the first answer again, without the secrets shown once, and flagged as a replay.
            expect(first.status, JSON.stringify(first.body)).toBe(200);
            expect(first.body.errors).toBeUndefined();
            const [field, created] = Object.entries(first.body.data!)[0];
            const { key: _key, token: _token, ...visible } = created!;
            expect(retry.body).toEqual({ data: { [field]: visible } });
            expect(other.body.errors?.[0]?.extensions?.code).toBe('IDEMPOTENCY_KEY_REUSED');
            return [first, retry, other];
          };
          const ours = await at(graphqlUrl('gateway'), 'g');
          const theirs = await at(graphqlUrl(kind), 's');
          expect(theirs.map(shape)).toEqual(ours.map(shape));
          expect(theirs.map((a) => [a.status, a.replayed])).toEqual([
            [200, null],
            [200, 'true'],
            [422, null],
          ]);
          if (kind === 'createTag') expect(await tagsNamed(`${name}-s-${run}`)).toBe(1);
        },
      ),
      { numRuns: RUNS, seed: SEED },
    );
  }, 120_000);

  it('creates one entry for concurrent retries: the others get 409 IDEMPOTENCY_KEY_IN_USE or the replay', async () => {
    const name = `concurrent-${randomUUID()}`;
    const key = randomUUID();
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => send(graphqlUrl('createTag'), KINDS.createTag.query(name), key)),
    );
    const done = answers.filter((a) => a.status === 200);
    expect(done.length).toBeGreaterThan(0);
    for (const a of done) expect(a.body).toEqual(done[0].body);
    for (const a of answers.filter((a) => a.status !== 200)) {
      expect(a.status).toBe(409);
      expect(a.body.errors?.[0]?.extensions?.code).toBe('IDEMPOTENCY_KEY_IN_USE');
    }
    expect(await tagsNamed(name)).toBe(1);
  });

  it('records no query sent with a key, as our gateway does, and refuses an invalid key with 400', async () => {
    const key = randomUUID();
    const query = `{ tags(${SCOPE}) { pagination { total } } }`;
    for (const url of [graphqlUrl('gateway'), graphqlUrl('createTag')]) {
      const read = await send(url, query, key);
      expect(read.status).toBe(200);
      expect(read.replayed).toBeNull();
      // The key is still free for a mutation.
      const name = `after-query-${randomUUID()}`;
      const created = await send(url, KINDS.createTag.query(name), key);
      expect(created.replayed).toBeNull();
      expect(created.body.data?.createTag?.name).toBe(name);
    }
    const bad = await Promise.all(
      [graphqlUrl('gateway'), graphqlUrl('createTag')].map((url) => send(url, KINDS.createTag.query('bad'), '')),
    );
    expect(bad.map(shape)[1]).toEqual(bad.map(shape)[0]);
    expect(bad[1].status).toBe(400);
  });

  it('leaves the key to our gateway on mutations it vouched for: the service records none of them', async () => {
    // The admin as our gateway forwards it (`x-cp-principal`, bound to the subgraph and the request id).
    const userId = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).sub as string;
    const principal = { kind: 'user', userId, organizationId: 'default', permissions: allPermissions() } as Principal;
    const secret = new TextEncoder().encode(SUBGRAPH_SECRET);
    const key = randomUUID();
    const vouched = async (name: string) => {
      const requestId = randomUUID();
      const signed = await signPrincipal(principal, secret, { subgraph: 'content', requestId });
      const headers = {
        'content-type': 'application/json',
        'x-cp-principal': signed,
        'x-request-id': requestId,
        'idempotency-key': key,
      };
      const body = JSON.stringify({ query: KINDS.createTag.query(name) });
      const res = await fetch(stack.service('content').url, { method: 'POST', headers, body });
      return { status: res.status, replayed: res.headers.get('idempotent-replayed'), body: await res.json() };
    };
    const [first, second] = [await vouched(`vouched-${key}`), await vouched(`vouched-2-${key}`)];
    expect([first.status, first.replayed, second.status, second.replayed]).toEqual([200, null, 200, null]);
    expect(second.body.data.createTag.id).not.toBe(first.body.data.createTag.id);
  });
});
