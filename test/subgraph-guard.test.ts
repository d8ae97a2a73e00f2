// Black-box: a standalone subgraph service refuses abusive input before execution exactly as the gateway does,
// and takes `x-cp-principal` only when signed with SUBGRAPH_SECRET for this subgraph and this request.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, PROJECT } from './support/client';
import {
  freePort,
  JWT_SECRET,
  spawnNode,
  startService,
  SUBGRAPH_SECRET,
  type Process,
  type TestService,
} from './support/service';
import { startStandaloneStack, type StandaloneStack } from './support/standalone';

type Refusal = { status: number; code?: string; message?: string };

/** The code and message of a refusal, from GraphQL's `errors[]` or the REST envelope. */
async function refusal(res: Response): Promise<Refusal> {
  const body = (await res.json()) as {
    errors?: { message: string; extensions?: { code?: string } }[];
    error?: { code: string; message: string };
  };
  const first = body.errors?.[0];
  return {
    status: res.status,
    code: first?.extensions?.code ?? body.error?.code,
    message: first?.message ?? body.error?.message,
  };
}

function post(url: string, body: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
}

describe('standalone subgraph service guards', () => {
  let stack: StandaloneStack;
  let gateway: TestService;
  let content: Process;
  let apiKey: string;
  let token: string;

  beforeAll(async () => {
    // Our gateway (in-process subgraphs) migrates the database, creates the admin and is the reference for the limits.
    stack = await startStandaloneStack({ gateway: 'beside', subgraphs: ['content'] });
    ({ gateway } = stack);
    content = stack.service('content');
    const api = new Client(gateway.url);
    token = await api.login();
    const key = await api.call('POST', `/app/v1${PROJECT}/api-keys`, { token, body: { name: 'guard' } });
    expect(key.status).toBe(201);
    apiKey = key.body.key;
  }, 240_000);
  afterAll(async () => {
    await stack?.stop();
  });

  const callers = () =>
    ({ anonymous: {}, 'API key': { 'x-api-key': apiKey }, user: { authorization: `Bearer ${token}` } }) as Record<
      string,
      Record<string, string>
    >;
  const contents = (n: number) =>
    `contents(organizationId: "default", projectId: "default", limit: ${n}) { data { id name content } }`;
  const abusive: Record<string, string> = {
    depth: JSON.stringify({
      query:
        '{ contents(organizationId: "default", projectId: "default") { data { a { b { c { d { e { f } } } } } } } }',
    }),
    aliases: JSON.stringify({
      query: `{ ${Array.from({ length: 16 }, (_, i) => `a${i}: tags(organizationId: "default", projectId: "default") { data { id } }`).join(' ')} }`,
    }),
    tokens: JSON.stringify({
      query: `{ contents(organizationId: "default", projectId: "default") { data { ${'id '.repeat(1200)} } } }`,
    }),
    characters: JSON.stringify({ query: `{ __typename } # ${'x'.repeat(16_000)}` }),
    'list cost': JSON.stringify({
      query: `{ ${Array.from({ length: 15 }, (_, i) => `a${i}: ${contents(100)}`).join(' ')} }`,
    }),
    'JSON depth': JSON.stringify({
      query: '{ __typename }',
      variables: { v: JSON.parse('['.repeat(200) + ']'.repeat(200)) },
    }),
    '2 MiB body': JSON.stringify({ query: '{ __typename }', variables: { pad: 'x'.repeat(2 * 1024 * 1024) } }),
  };

  it('refuses every abusive request before execution with the gateway’s status, code and message, for every kind of caller', async () => {
    for (const [caller, headers] of Object.entries(callers())) {
      for (const [name, body] of Object.entries(abusive)) {
        const at = `${name}, ${caller}`;
        const expected = await refusal(await post(`${gateway.url}/graphql`, body, headers));
        expect([400, 413], at).toContain(expected.status);
        expect(await refusal(await post(content.url, body, headers)), at).toEqual(expected);
      }
    }
  }, 120_000);

  it('applies the limits to GET requests too', async () => {
    const query = JSON.parse(abusive.depth).query as string;
    const res = await fetch(`${content.url}?${new URLSearchParams({ query })}`, {
      headers: { 'x-api-key': apiKey, 'apollo-require-preflight': 'true' },
    });
    expect(await refusal(res)).toMatchObject({
      status: 400,
      code: 'BAD_REQUEST',
      message: expect.stringMatching(/depth/),
    });
  });

  it('still answers legitimate requests of the same callers', async () => {
    const sdl = await post(content.url, JSON.stringify({ query: '{ _service { sdl } }' }));
    expect(sdl.status).toBe(200);
    const list = await post(content.url, JSON.stringify({ query: `{ ${contents(100)} }` }), { 'x-api-key': apiKey });
    expect(list.status).toBe(200);
    expect((await list.json()).data.contents.data).toBeInstanceOf(Array);
  });

  describe('x-cp-principal', () => {
    const OWNER = { kind: 'anonymous' };
    const QUERY = JSON.stringify({ query: '{ _entities(representations: []) { __typename } }' });
    /** An HS256 JWT made by hand: what any holder of `secret` could mint. */
    const sign = async (secret: string, claims: { aud?: string; rid?: string }) => {
      const now = Math.floor(Date.now() / 1000);
      const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
      const unsigned = `${part({ alg: 'HS256' })}.${part({ principal: OWNER, ...claims, iat: now, exp: now + 60 })}`;
      return `${unsigned}.${createHmac('sha256', secret).update(unsigned).digest('base64url')}`;
    };
    const send = (principal: string, requestId?: string) =>
      post(content.url, QUERY, { 'x-cp-principal': principal, ...(requestId ? { 'x-request-id': requestId } : {}) });

    it('accepts a principal signed with SUBGRAPH_SECRET for this subgraph and this request id', async () => {
      const res = await send(await sign(SUBGRAPH_SECRET, { aud: 'cp-subgraph:content', rid: 'req-1' }), 'req-1');
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ data: { _entities: [] } });
    });

    it('refuses with 401 a principal signed with JWT_SECRET, a user token, another audience, or another request id', async () => {
      const cases: [string, string, string | undefined][] = [
        ['JWT_SECRET, bound right', await sign(JWT_SECRET, { aud: 'cp-subgraph:content', rid: 'req-2' }), 'req-2'],
        ['JWT_SECRET, an audience bound to no subgraph', await sign(JWT_SECRET, { aud: 'cp-subgraph' }), undefined],
        ['a user token', token, undefined],
        ['for another subgraph', await sign(SUBGRAPH_SECRET, { aud: 'cp-subgraph:access', rid: 'req-3' }), 'req-3'],
        [
          'replayed with another request id',
          await sign(SUBGRAPH_SECRET, { aud: 'cp-subgraph:content', rid: 'req-4' }),
          'req-5',
        ],
        [
          'without the request id',
          await sign(SUBGRAPH_SECRET, { aud: 'cp-subgraph:content', rid: 'req-6' }),
          undefined,
        ],
        ['without a bound request id', await sign(SUBGRAPH_SECRET, { aud: 'cp-subgraph:content' }), 'req-7'],
      ];
      for (const [name, principal, requestId] of cases) {
        const res = await send(principal, requestId);
        expect(await refusal(res), name).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
      }
    });
  });

  it('a subgraph service, and a gateway with SUBGRAPH_URLS, refuse to start without SUBGRAPH_SECRET', async () => {
    await expect(
      spawnNode(
        'subgraphs/content/dist/main.js',
        { DATABASE_URL: gateway.databaseUrl!, JWT_SECRET, SUBGRAPH_PORT: String(await freePort()) },
        /subgraph content listening/,
        60_000,
      ),
    ).rejects.toThrow(/SUBGRAPH_SECRET/);
    await expect(
      startService({
        databaseUrl: gateway.databaseUrl,
        env: { SUBGRAPH_SECRET: '', SUBGRAPH_URLS: `content=${content.url}` },
        startTimeoutMs: 60_000,
      }),
    ).rejects.toThrow(/SUBGRAPH_SECRET/);
  }, 150_000);
});
