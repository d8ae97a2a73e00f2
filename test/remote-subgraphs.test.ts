// Black-box: the same code deployed as four subgraph services behind a gateway over HTTP, on one real PostgreSQL.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, PROJECT } from './support/client';
import { ADMIN, startService, type TestService } from './support/service';
import { startStandaloneStack, type StandaloneStack } from './support/standalone';

const UNLIMITED = { RATE_LIMIT_PER_MINUTE: '1000000', RATE_LIMIT_PER_HOUR: '1000000' };
const METRICS_TOKEN = 'metrics-token-0123456789';

/** How many operations an in-process gateway ran on a subgraph directly, by API (`cp_direct_executions_total`). */
async function directRuns(url: string): Promise<{ rest: number; graphql: number }> {
  const headers = { authorization: `Bearer ${METRICS_TOKEN}` };
  const metrics = await (await fetch(`${url}/metrics`, { headers })).text();
  const count = (api: string) =>
    Number(new RegExp(`^cp_direct_executions_total\\{api="${api}"\\} (\\d+)$`, 'm').exec(metrics)?.[1] ?? 0);
  return { rest: count('rest'), graphql: count('graphql') };
}

describe('remote subgraphs (SUBGRAPH_URLS)', () => {
  let stack: StandaloneStack;
  let gateway: TestService;

  beforeAll(async () => {
    // The differential walks make thousands of requests as one user within a minute: no rate limit in the way.
    stack = await startStandaloneStack({ env: { SIGN_IN_FAILURES_PER_ACCOUNT: '3', ...UNLIMITED } });
    ({ gateway } = stack);
  });
  afterAll(() => stack?.stop());

  it('serves REST and GraphQL across subgraphs over HTTP, with codes passed through', async () => {
    const api = new Client(gateway.url);
    const token = await api.login();
    const created = await api.call('POST', `/app/v1${PROJECT}/content-types`, {
      token,
      body: { name: 'Remote', schema: { type: 'object' } },
    });
    expect(created.status).toBe(201);

    const res = await api.graphql(
      `query($id: ID!) { contentType(organizationId: "default", projectId: "default", id: $id) { name createdBy { email } } }`,
      { id: created.body.id },
      { token },
    );
    expect(res.body).toEqual({ data: { contentType: { name: 'Remote', createdBy: { email: 'admin@example.com' } } } });

    const duplicate = await api.call('POST', `/app/v1${PROJECT}/content-types`, {
      token,
      body: { name: 'Remote', schema: { type: 'object' } },
    });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.error.code).toBe('NAME_TAKEN');
    const missing = await api.call('GET', `/app/v1${PROJECT}/content-types/nope`, { token });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('NOT_FOUND');
  });

  it('answers /health on every subgraph service with exactly {status, version, timestamp}, as the gateway does', async () => {
    const shape = async (base: string) => {
      const res = await fetch(`${base}/health`);
      const body = await res.json();
      expect(res.status).toBe(200);
      expect(body).toEqual({
        status: 'ok',
        version: expect.stringMatching(/^\d+\.\d+\.\d+/),
        timestamp: expect.any(String),
      });
      expect(new Date(body.timestamp).toISOString()).toBe(body.timestamp);
      return Object.keys(body).sort();
    };
    const gatewayKeys = await shape(gateway.url);
    for (const service of Object.values(stack.services))
      expect(await shape(service.url.replace(/\/graphql$/, ''))).toEqual(gatewayKeys);
  });

  it('refuses a forged principal at a subgraph service', async () => {
    const res = await fetch(stack.service('content').url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-cp-principal': 'forged' },
      body: JSON.stringify({
        query: '{ contentTypes(organizationId: "default", projectId: "default") { data { id } } }',
      }),
    });
    const body = await res.json();
    expect(JSON.stringify(body)).toMatch(/UNAUTHORIZED/);
    expect(JSON.stringify(body)).not.toMatch(/"name"/);
  });

  // An in-process gateway runs queries on the one subgraph that answers them (direct-reads.ts); this one
  // plans and shapes every read through @apollo/gateway. Both must answer every REST read and these queries alike.
  it('answers every REST read and GraphQL query exactly as a gateway with in-process subgraphs does (direct reads)', async () => {
    const inProcess = await startService({ databaseUrl: gateway.databaseUrl, env: { METRICS_TOKEN, ...UNLIMITED } });
    try {
      const api = new Client(gateway.url);
      const token = await api.login();
      const call = (method: string, path: string, body?: unknown) =>
        api.call(method, `/app/v1${PROJECT}${path}`, { token, body });
      const type = await call('POST', '/content-types', {
        name: 'Direct',
        schema: { type: 'object', properties: { title: { type: 'string' } } },
      });
      await call('POST', `/content-types/${type.body.id}/publish`);
      const entry = await call('POST', '/content', {
        typeId: type.body.id,
        name: 'Direct entry',
        content: { title: 'one' },
        tags: ['direct'],
      });
      await call('POST', `/content/${entry.body.id}/publish`);
      await call('PUT', `/content/${entry.body.id}`, { content: { title: 'two' } });
      const folder = await call('POST', '/folders', { name: 'Direct folder' });
      const saved = await call('POST', '/saved-searches', {
        name: 'direct',
        query: { filter: { name: { like: 'Direct' } } },
      });
      const schedule = await call('POST', '/schedules', {
        resourceType: 'content',
        resourceId: entry.body.id,
        action: 'publish',
        at: new Date(Date.now() + 86_400_000).toISOString(),
      });
      const key = await call('POST', '/api-keys', { name: 'direct reader' });
      const tags = await call('GET', '/tags');
      for (const created of [type, entry, folder, saved, schedule, key, tags])
        expect(created.status, JSON.stringify(created.body)).toBeLessThan(300);
      const ids: Record<string, string> = {
        'content-types': type.body.id,
        content: entry.body.id,
        folders: folder.body.id,
        'saved-searches': saved.body.id,
        schedules: schedule.body.id,
        'api-keys': key.body.id,
        tags: tags.body.data[0].id,
      };

      const paths = async (family: 'app' | 'api') => {
        const document = await (await fetch(`${gateway.url}/${family}/v1/openapi.json`)).json();
        return Object.entries(document.paths as Record<string, { get?: unknown }>)
          .filter(([path, item]) => item.get && !path.includes('events') && !path.startsWith('/cdn'))
          .map(([path]) =>
            path.replace(
              /\/([^/{]+)\/\{(?:id|componentId|version)\}/g,
              (_, resource: string) => `/${resource}/${ids[resource] ?? 'unknown-id'}`,
            ),
          )
          .map((path) => path.replace('{organizationId}', 'default').replace('{projectId}', 'default'));
      };
      const walk = async (family: 'app' | 'api', credential: { token?: string; apiKey?: string }) => {
        const routes = await paths(family);
        expect(routes.length).toBeGreaterThan(family === 'app' ? 30 : 10);
        for (const path of routes) {
          for (const query of ['', '?limit=1', '?limit=abc', '?limit=1000000']) {
            const [viaGateway, direct] = await Promise.all(
              [api, new Client(inProcess.url)].map((c) => c.call('GET', path + query, credential)),
            );
            expect({ path: path + query, status: direct.status, body: direct.body }).toEqual({
              path: path + query,
              status: viaGateway.status,
              body: viaGateway.body,
            });
          }
        }
        // The POST reads (searches, saved-search execution) take their variables from the body.
        const searches = [
          '/content/search',
          `/saved-searches/${saved.body.id}/execute`,
          ...(family === 'app' ? ['/content'] : []),
        ];
        const bodies = [
          {},
          { filter: { name: { like: 'Direct' } }, limit: 1 },
          { page: 2, limit: 1 },
          { limit: 'abc' },
          { limit: 1000000 },
          { page: 0 },
          { filter: { color: { eq: 1 } } },
          { sort: 'nope' },
        ];
        for (const path of searches) {
          for (const body of bodies) {
            const [viaGateway, direct] = await Promise.all(
              [api, new Client(inProcess.url)].map((c) =>
                c.call('POST', `/${family}/v1${PROJECT}${path}`, { ...credential, body }),
              ),
            );
            const label = `POST ${path} ${JSON.stringify(body)}`;
            expect({ label, status: direct.status, body: direct.body }).toEqual({
              label,
              status: viaGateway.status,
              body: viaGateway.body,
            });
          }
        }
      };
      // Admin reads first: the key's `lastUsed` changes once it has been used.
      await walk('app', { token });
      await walk('api', { apiKey: key.body.key });
      // GraphQL: the in-process gateway runs an operation's second request on the subgraph when its plan proved it local.
      const P = 'organizationId: "default", projectId: "default"';
      const operations: [string, Record<string, unknown>?][] = [
        [
          `query Q($limit: Int) { contents(${P}, limit: $limit) { data { id name status version revision content compiled tags createdBy { id } createdAt } pagination { limit lastKey } } }`,
          { limit: 5 },
        ],
        [
          `query Q($id: ID!) { content(${P}, id: $id) { id name status lastPublishedVersion content metadata } }`,
          { id: entry.body.id },
        ],
        [`query Q($id: ID!) { content(${P}, id: $id) { id } }`, { id: 'unknown-id' }],
        [`query Q($limit: Int) { contents(${P}, limit: $limit) { data { id } } }`, { limit: 'abc' }],
        [`{ contents(${P}, limit: 1000000) { data { id name } } }`],
        [
          `{ a: contentTypes(${P}) { data { id name schema status createdBy { id } } } b: tags(${P}) { data { id name } } __typename }`,
        ],
        [
          `{ savedSearches(${P}) { data { id name query } } schedules(${P}) { data { id action status at } } folders(${P}) { data { ... on Folder { id name } } } }`,
        ],
        [`{ organizations { data { id name } } roles(organizationId: "default") { data { id name permissions } } }`],
        [`{ contentType(${P}, id: "${type.body.id}") { name createdBy { email } } }`],
      ];
      for (const credential of [{ token }, { apiKey: key.body.key }]) {
        for (const [query, variables] of operations) {
          for (let i = 0; i < 2; i++) {
            const [viaGateway, direct] = await Promise.all(
              [api, new Client(inProcess.url)].map((c) => c.graphql(query, variables, credential)),
            );
            expect({ query, status: direct.status, body: direct.body }).toEqual({
              query,
              status: viaGateway.status,
              body: viaGateway.body,
            });
          }
        }
      }

      // The in-process gateway really took the direct path (not for `limit=abc`, the first request of an operation, …).
      const direct = await directRuns(inProcess.url);
      expect(direct.rest).toBeGreaterThan(40);
      expect(direct.graphql).toBeGreaterThanOrEqual(10);
    } finally {
      await inProcess.destroy();
    }
  });

  // Writes: every mutation route answers alike whether the in-process gateway runs it on the content subgraph directly
  // or the gateway plans it and sends it to a remote subgraph service. Two projects on one database, one per gateway,
  // get the same generated changes; the answers must match once each project's own ids and times are named alike.
  it('answers every generated sequence of writes exactly as a gateway with remote subgraphs does (direct execution)', async () => {
    const inProcess = await startService({ databaseUrl: gateway.databaseUrl, env: { METRICS_TOKEN, ...UNLIMITED } });
    try {
      const token = await new Client(gateway.url).login();
      const before = await directRuns(inProcess.url);
      let project = 0;
      /** One project reached through one gateway; every answer is kept, with its own ids and times named by order. */
      const world = async (url: string) => {
        const api = new Client(url);
        const created = await api.call('POST', '/app/v1/organizations/default/projects', {
          token,
          body: { name: `Writes ${++project}` },
        });
        const projectId: string = created.body.id;
        const base = `/app/v1/organizations/default/projects/${projectId}`;
        const names = new Map<string, string>([[projectId, 'PROJECT']]);
        const normal = (value: unknown): unknown =>
          JSON.parse(
            JSON.stringify(value)
              .replaceAll(projectId, 'PROJECT')
              .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, 'TIME')
              .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, (id) => {
                if (!names.has(id)) names.set(id, `ID${names.size}`);
                return names.get(id)!;
              }),
          );
        const call = async (method: string, path: string, body?: unknown, headers?: Record<string, string>) => {
          const res = await api.call(method, `${base}${path}`, { token, body, headers });
          return normal({ status: res.status, body: res.body });
        };
        const graphql = async (query: string, variables: Record<string, unknown>) => {
          const res = await api.graphql(query, { ...variables, o: 'default', p: projectId }, { token });
          return normal({ status: res.status, body: res.body });
        };
        return { api, base, call, graphql, normal, projectId, entries: [] as string[], revisions: [] as number[] };
      };
      type World = Awaited<ReturnType<typeof world>>;

      const setUp = async (w: World) => {
        const answers: unknown[] = [];
        const type = await w.api.call('POST', `${w.base}/content-types`, {
          token,
          body: { name: 'Writes', schema: { type: 'object', properties: { title: { type: 'string' } } } },
        });
        answers.push(await w.call('POST', `/content-types/${type.body.id}/publish`));
        for (const name of ['a', 'b', 'c']) {
          const entry = await w.api.call('POST', `${w.base}/content`, {
            token,
            body: { typeId: type.body.id, name, content: { title: name } },
          });
          w.entries.push(entry.body.id);
          w.revisions.push(entry.body.revision);
          answers.push(entry.status);
        }
        w.entries.push('00000000-0000-4000-8000-000000000000'); // no such entry: 404
        return answers;
      };

      const target = fc.integer({ min: 0, max: 3 });
      const command = fc.oneof(
        fc.record({
          op: fc.constant('put' as const),
          i: target,
          content: fc.constantFrom({ title: 'x' }, { title: 1 }, { title: 'y', more: [1, { z: null }] }),
          name: fc.option(fc.constantFrom('a', 'b', 'd')),
          ifMatch: fc.constantFrom('none', 'current', 'stale'),
        }),
        fc.record({
          op: fc.constantFrom('publish' as const, 'unpublish' as const, 'discard' as const, 'restore' as const),
          i: target,
          via: fc.constantFrom('rest', 'graphql'),
        }),
        fc.record({ op: fc.constant('delete' as const), i: target }),
        fc.record({ op: fc.constant('rollback' as const), i: target, version: fc.integer({ min: 0, max: 3 }) }),
        fc.record({ op: fc.constant('tag' as const), name: fc.constantFrom('t1', 't2') }),
      );
      type Command = typeof command extends fc.Arbitrary<infer C> ? C : never;

      const run = async (w: World, c: Command) => {
        if (c.op === 'tag') return w.call('POST', '/tags', { name: c.name });
        const id = w.entries[c.i]!;
        if (c.op === 'put') {
          const headers: Record<string, string> = {};
          if (c.ifMatch !== 'none') headers['if-match'] = `"${w.revisions[c.i]! - (c.ifMatch === 'stale' ? 1 : 0)}"`;
          const answer = await w.api.call('PUT', `${w.base}/content/${id}`, {
            token,
            headers,
            body: { content: c.content, ...(c.name ? { name: c.name } : {}) },
          });
          if (answer.status === 200) w.revisions[c.i] = answer.body.revision;
          return [w.normal({ status: answer.status, body: answer.body }), await w.call('GET', `/content/${id}`)];
        }
        if (c.op === 'delete') return w.call('DELETE', `/content/${id}`);
        if (c.op === 'rollback') return w.call('POST', `/content/${id}/rollback`, { version: c.version });
        if (c.via === 'rest') return w.call('POST', `/content/${id}/${c.op}`);
        const field = `${c.op}Content`;
        return w.graphql(
          `mutation($o: ID!, $p: ID!, $id: ID!) { ${field}(organizationId: $o, projectId: $p, id: $id) { id name status version lastPublishedVersion revision content } }`,
          { id },
        );
      };

      await fc.assert(
        fc.asyncProperty(fc.array(command, { minLength: 8, maxLength: 20 }), async (commands) => {
          const [remote, direct] = [await world(gateway.url), await world(inProcess.url)];
          expect(await setUp(direct)).toEqual(await setUp(remote));
          for (const c of commands) {
            const expected = await run(remote, c);
            const actual = await run(direct, c);
            expect({ c, answer: actual }).toEqual({ c, answer: expected });
          }
        }),
        { numRuns: Number(process.env.FC_RUNS ?? 6), seed: Number(process.env.FC_SEED ?? 20261129) },
      );
      // The in-process gateway really ran the writes on the subgraph (after each operation's first, planned, request).
      const after = await directRuns(inProcess.url);
      expect(after.rest - before.rest).toBeGreaterThan(20);
      expect(after.graphql - before.graphql).toBeGreaterThan(3);
    } finally {
      await inProcess.destroy();
    }
  });

  // Last: it locks the admin account for the rest of the window.
  it('counts failed sign-ins per account across the gateway and the standalone access service (shared store)', async () => {
    const api = new Client(gateway.url);
    const wrong = { email: 'admin@example.com', password: 'not-the-password-at-all' };
    for (let i = 0; i < 2; i++)
      expect((await api.call('POST', '/app/v1/auth/login', { body: wrong })).status).toBe(401);
    const login = (password: string) =>
      fetch(stack.service('access').url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          query: 'mutation($i: LoginInput!) { login(input: $i) { token } }',
          variables: { i: { email: wrong.email, password } },
        }),
      }).then((r) => r.json());
    expect(JSON.stringify(await login(wrong.password))).toMatch(/UNAUTHORIZED/);
    // The third failure happened at the access service: the account is now refused there and at the gateway.
    const refused = await login(ADMIN.password);
    expect(JSON.stringify(refused)).toMatch(/RATE_LIMITED/);
    expect(refused.data?.login?.token).toBeUndefined();
    expect(
      (await api.call('POST', '/app/v1/auth/login', { body: { email: wrong.email, password: ADMIN.password } })).status,
    ).toBe(429);
  });
});
