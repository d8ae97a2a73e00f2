// Black-box: the modules' HTTP routes (uploads, CDN) answer alike at the gateway and at a standalone subgraph
// service (`SUBGRAPH_URLS`): every caller gets the same status and code on both, tenants stay apart, CDN is public.
import { allPermissions, signPrincipal, type Principal } from '@cp/graphql';
import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, PROJECT } from './support/client';
import { JWT_SECRET, runCli, SUBGRAPH_SECRET, type TestService } from './support/service';
import { startStandaloneStack, type StandaloneStack } from './support/standalone';

const PASSWORD = 'grey-otter-kettle-41';
const source = `
export interface Props { title: string }
export function metadata() { return { title: 'Card', description: 'A card' }; }
export default function render(props: Props) { return '<h1>' + props.title + '</h1>'; }
`;

type Caller = { token?: string; apiKey?: string };

describe('HTTP routes at the gateway and at standalone subgraph services', () => {
  let stack: StandaloneStack;
  let gateway: TestService;
  let api: Client;
  let componentId: string;
  const callers: Record<string, Caller> = {};

  beforeAll(async () => {
    // The gateway (in-process subgraphs) bootstraps and migrates; the standalone services share its database and DATA_DIR.
    stack = await startStandaloneStack({ gateway: 'beside', subgraphs: ['assets', 'components'] });
    ({ gateway } = stack);
    api = new Client(gateway.url);
    const token = await api.login();
    callers.admin = { token };
    callers.anonymous = {};
    callers.badToken = { token: 'not-a-jwt' };
    const app = `/app/v1${PROJECT}`;
    callers.publishedKey = {
      apiKey: (await api.call('POST', `${app}/api-keys`, { token, body: { name: 'p' } })).body.key,
    };
    callers.previewKey = {
      apiKey: (await api.call('POST', `${app}/api-keys`, { token, body: { name: 'v', scope: 'preview' } })).body.key,
    };
    expect(callers.publishedKey.apiKey).toMatch(/^cpk_/);
    expect(callers.previewKey.apiKey).toMatch(/^cpk_/);
    // A user who may read everything but create or change nothing.
    const role = await api.call('POST', '/app/v1/organizations/default/roles', {
      token,
      body: { name: 'reader', permissions: { assets: { read: true }, components: { read: true } } },
    });
    expect(role.status, JSON.stringify(role.body)).toBe(201);
    const email = `${randomUUID()}@example.com`;
    const user = await api.call('POST', '/app/v1/organizations/default/users', {
      token,
      body: { email, name: 'Reader', password: PASSWORD, roleId: role.body.id },
    });
    expect(user.status).toBe(201);
    callers.reader = { token: await api.login(email, PASSWORD) };
    // The owner of another organization (every permission there, none here).
    const created = await runCli({ DATA_DIR: stack.dataDir, JWT_SECRET, DATABASE_URL: stack.databaseUrl }, [
      'organizations',
      'create',
      'Other',
      '--id',
      'other-org',
      '--owner-email',
      'owner@other.example',
      '--owner-password',
      PASSWORD,
      '--json',
    ]);
    expect(created.code, created.stderr).toBe(0);
    callers.foreignOwner = { token: await api.login('owner@other.example', PASSWORD) };

    let component = await api.call('POST', `${app}/components`, {
      token,
      body: { name: 'Card', type: 'view', content: source },
    });
    // A cold sandbox worker on a loaded machine can trip the CPU deadline: retry that case only.
    for (let i = 0; i < 10 && /longer than/.test(component.body?.error?.details?.content ?? ''); i++) {
      component = await api.call('POST', `${app}/components`, {
        token,
        body: { name: 'Card', type: 'view', content: source },
      });
    }
    expect(component.status, JSON.stringify(component.body)).toBe(201);
    componentId = component.body.id;
  }, 240_000);

  afterAll(async () => {
    await stack?.stop();
  });

  const base = (name: 'gateway' | 'assets' | 'components') =>
    name === 'gateway' ? gateway.url : stack.service(name).url.replace(/\/graphql$/, '');

  async function upload(
    origin: string,
    path: string,
    caller: Caller,
    { key, content = 'hello parity' }: { key?: string; content?: string } = {},
  ) {
    const body = new FormData();
    body.append('file', new Blob([Buffer.from(content)], { type: 'text/plain' }), 'hello.txt');
    const headers: Record<string, string> = {};
    if (caller.token) headers.authorization = `Bearer ${caller.token}`;
    if (caller.apiKey) headers['x-api-key'] = caller.apiKey;
    if (key) headers['idempotency-key'] = key;
    const res = await fetch(`${origin}${path}`, { method: 'POST', headers, body });
    const json = await res.json();
    const replayed = res.headers.get('idempotent-replayed');
    return { status: res.status, code: json?.error?.code as string | undefined, body: json, replayed };
  }

  /** Sent byte for byte (fetch would resolve `..` segments before sending). */
  function raw(origin: string, method: string, path: string, headers: Record<string, string> = {}) {
    return new Promise<{ status: number; code?: string }>((resolve, reject) => {
      const req = request(`${origin}/`, { method, path, headers }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => {
          let code: string | undefined;
          try {
            code = JSON.parse(text)?.error?.code;
          } catch {
            code = `not JSON: ${text.slice(0, 80)}`;
          }
          resolve({ status: res.statusCode ?? 0, code });
        });
      });
      req.on('error', reject);
      req.end();
    });
  }

  // What each caller must get from an upload route, wherever it is served.
  const EXPECTED: Record<string, { status: number; code?: string }> = {
    anonymous: { status: 401, code: 'UNAUTHORIZED' },
    badToken: { status: 401, code: 'UNAUTHORIZED' },
    publishedKey: { status: 401, code: 'UNAUTHORIZED' },
    previewKey: { status: 401, code: 'UNAUTHORIZED' },
    reader: { status: 403, code: 'FORBIDDEN' },
    foreignOwner: { status: 404, code: 'NOT_FOUND' },
    admin: { status: 201 },
  };

  it('answers every caller of both upload routes with the same status and code at the gateway and the service', async () => {
    const routes = [
      { service: 'assets' as const, path: `/app/v1${PROJECT}/assets` },
      { service: 'components' as const, path: `/app/v1${PROJECT}/components/${componentId}/assets` },
    ];
    const seen: unknown[] = [];
    const wanted: unknown[] = [];
    for (const route of routes) {
      for (const [name, caller] of Object.entries(callers)) {
        for (const host of ['gateway', route.service] as const) {
          const res = await upload(base(host), route.path, caller);
          if (res.status !== 201) expect(res.body.error, JSON.stringify(res.body)).toHaveProperty('message');
          seen.push({ route: route.service, caller: name, host, status: res.status, code: res.code });
          wanted.push({ route: route.service, caller: name, host, ...EXPECTED[name], code: EXPECTED[name].code });
        }
      }
    }
    expect(seen).toEqual(wanted);
  });

  it('delivers an asset publicly at both addresses, and only under its own organization and project', async () => {
    const created = await upload(gateway.url, `/app/v1${PROJECT}/assets`, callers.admin);
    expect(created.status).toBe(201);
    const { id, name } = created.body;
    const paths = [
      [`/cdn/default/default/assets/${id}/${name}`, 200],
      [`/cdn/other-org/default/assets/${id}/${name}`, 404],
      [`/cdn/default/other/assets/${id}/${name}`, 404],
    ] as const;
    for (const host of ['gateway', 'assets'] as const) {
      for (const [path, status] of paths) {
        const res = await fetch(`${base(host)}${path}`);
        expect({ host, path, status: res.status }).toEqual({ host, path, status });
        if (status === 200) expect(await res.text()).toBe('hello parity');
        else expect((await res.json()).error.code).toBe('NOT_FOUND');
      }
    }
    expect((await api.call('DELETE', `/app/v1${PROJECT}/assets/${id}`, callers.admin)).status).toBe(200);
    for (const host of ['gateway', 'assets'] as const) {
      expect((await fetch(`${base(host)}/cdn/default/default/assets/${id}/${name}`)).status).toBe(404);
    }
  });

  it('a published key reads no draft component, a preview key reads it, alike at the gateway and the service', async () => {
    const query = '{ components(organizationId: "default", projectId: "default") { data { id status } } }';
    const read = async (origin: string, apiKey: string) => {
      const res = await fetch(`${origin}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
        body: JSON.stringify({ query }),
      });
      return res.json();
    };
    for (const host of ['gateway', 'components'] as const) {
      const published = await read(`${base(host)}`, callers.publishedKey.apiKey!);
      expect({ host, published }).toEqual({ host, published: { data: { components: { data: [] } } } });
      const preview = await read(`${base(host)}`, callers.previewKey.apiKey!);
      expect({ host, preview }).toEqual({
        host,
        preview: { data: { components: { data: [{ id: componentId, status: 'draft' }] } } },
      });
      // Another organization's owner sees nothing of this project either (404, like an unknown one).
      const foreign = await fetch(`${base(host)}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${callers.foreignOwner.token}` },
        body: JSON.stringify({ query }),
      }).then((r) => r.json());
      expect({ host, code: foreign.errors?.[0]?.extensions?.code, data: foreign.data?.components ?? null }).toEqual({
        host,
        code: 'NOT_FOUND',
        data: null,
      });
    }
  });

  it('answers malformed percent-encoding in a route parameter with 400 at the gateway and the service, never 500', async () => {
    const seen: unknown[] = [];
    for (const bad of ['%FF', '%C0%AF', '%', '%zz']) {
      const routes = [
        { service: 'assets' as const, method: 'GET', path: `/cdn/${bad}/default/assets/${bad}/f` },
        { service: 'assets' as const, method: 'POST', path: `/app/v1/organizations/${bad}/projects/default/assets` },
        { service: 'components' as const, method: 'GET', path: `/cdn/default/default/component-assets/${bad}/f` },
        { service: 'components' as const, method: 'POST', path: `/app/v1${PROJECT}/components/${bad}/assets` },
      ];
      for (const route of routes) {
        for (const host of ['gateway', route.service] as const) {
          const res = await fetch(`${base(host)}${route.path}`, {
            method: route.method,
            headers: route.method === 'POST' ? { authorization: `Bearer ${callers.admin.token}` } : {},
          });
          const body = await res.json();
          seen.push({ host, path: route.path, status: res.status, code: body.error?.code });
        }
      }
    }
    expect(seen).toEqual(seen.map((s) => ({ ...(s as object), status: 400, code: 'BAD_REQUEST' })));
  });

  it('answers a retried upload alike at the gateway and the service: one answer per caller and key, replayed', async () => {
    const routes = [
      { service: 'assets' as const, path: `/app/v1${PROJECT}/assets` },
      { service: 'components' as const, path: `/app/v1${PROJECT}/components/${componentId}/assets` },
    ];
    const seen: unknown[] = [];
    const wanted: unknown[] = [];
    for (const route of routes) {
      for (const host of ['gateway', route.service] as const) {
        const other = host === 'gateway' ? route.service : 'gateway';
        const key = randomUUID();
        const first = await upload(base(host), route.path, callers.admin, { key });
        const retry = await upload(base(host), route.path, callers.admin, { key });
        // Both hosts keep keys in the same table, per caller: a retry sent to the other address replays as well.
        const elsewhere = await upload(base(other), route.path, callers.admin, { key });
        // Another file (another length) under the same key is another request.
        const changed = await upload(base(host), route.path, callers.admin, { key, content: 'another, longer file' });
        // Keys are per caller: others sending the same key get their own answers, never the admin's.
        const foreign = await upload(base(host), route.path, callers.foreignOwner, { key });
        const reader = await upload(base(host), route.path, callers.reader, { key });
        seen.push({
          route: route.service,
          host,
          first: [first.status, first.replayed],
          retry: [retry.status, retry.replayed, retry.body],
          elsewhere: [elsewhere.status, elsewhere.replayed, elsewhere.body],
          changed: [changed.status, changed.code],
          foreign: [foreign.status, foreign.code, foreign.replayed],
          reader: [reader.status, reader.code, reader.replayed],
        });
        wanted.push({
          route: route.service,
          host,
          first: [201, null],
          retry: [201, 'true', first.body],
          elsewhere: [201, 'true', first.body],
          changed: [422, 'IDEMPOTENCY_KEY_REUSED'],
          foreign: [404, 'NOT_FOUND', null],
          reader: [403, 'FORBIDDEN', null],
        });
      }
    }
    expect(seen).toEqual(wanted);
  });

  it('leaves Idempotency-Key to our gateway on calls it vouched for: the service records none of them', async () => {
    // The admin as our gateway forwards it (`x-cp-principal`, bound to the subgraph and the request id).
    const userId = JSON.parse(Buffer.from(callers.admin.token!.split('.')[1], 'base64url').toString()).sub as string;
    const principal = { kind: 'user', userId, organizationId: 'default', permissions: allPermissions() } as Principal;
    const secret = new TextEncoder().encode(SUBGRAPH_SECRET);
    const key = randomUUID();
    const vouched = async () => {
      const requestId = randomUUID();
      const signed = await signPrincipal(principal, secret, { subgraph: 'assets', requestId });
      const body = new FormData();
      body.append('file', new Blob([Buffer.from('hello parity')], { type: 'text/plain' }), 'hello.txt');
      const headers = { 'x-cp-principal': signed, 'x-request-id': requestId, 'idempotency-key': key };
      const res = await fetch(`${base('assets')}/app/v1${PROJECT}/assets`, { method: 'POST', headers, body });
      return { status: res.status, replayed: res.headers.get('idempotent-replayed'), id: (await res.json()).id };
    };
    const [first, second] = [await vouched(), await vouched()];
    expect([first.status, first.replayed, second.status, second.replayed]).toEqual([201, null, 201, null]);
    expect(second.id).not.toBe(first.id);
    // Nor was a key left behind: the same caller's own retry under that key runs afresh, then replays.
    const direct = await upload(base('assets'), `/app/v1${PROJECT}/assets`, callers.admin, { key });
    expect([direct.status, direct.replayed]).toEqual([201, null]);
    expect(direct.body.id).not.toBe(second.id);
  });

  it('refuses hostile URLs (NUL, control characters, `.`/`..` segments) with the same 400 at the gateway and the service', async () => {
    const auth = { authorization: `Bearer ${callers.admin.token}` };
    const routes = [
      { service: 'assets' as const, method: 'POST', path: '/app/v1/organizations/%00/projects/default/assets' },
      { service: 'assets' as const, method: 'POST', path: '/app/v1/organizations/default/projects/%01/assets' },
      { service: 'assets' as const, method: 'POST', path: '/app/v1/organizations/default/projects/../assets' },
      { service: 'assets' as const, method: 'POST', path: `/app/v1${PROJECT}/assets?x=%00` },
      { service: 'assets' as const, method: 'GET', path: '/cdn/default/default/assets/%1F/f' },
      { service: 'assets' as const, method: 'GET', path: '/cdn/default/default/assets/x/%2e%2e' },
      { service: 'assets' as const, method: 'GET', path: '/cdn/default/./default/assets/x/f' },
      { service: 'components' as const, method: 'POST', path: `/app/v1${PROJECT}/components/%7F/assets` },
      { service: 'components' as const, method: 'POST', path: `/app/v1${PROJECT}/components/%2E%2e/assets` },
      { service: 'components' as const, method: 'GET', path: '/cdn/default/default/component-assets/../f' },
      { service: 'components' as const, method: 'POST', path: '/graphql?query=%7B__typename%7D&x=%00' },
    ];
    const seen: unknown[] = [];
    for (const route of routes) {
      for (const host of ['gateway', route.service] as const) {
        const res = await raw(base(host), route.method, route.path, route.method === 'POST' ? auth : {});
        seen.push({ host, method: route.method, path: route.path, status: res.status, code: res.code });
      }
    }
    expect(seen).toEqual(seen.map((s) => ({ ...(s as object), status: 400, code: 'BAD_REQUEST' })));
  });

  it('answers an unknown path with the 404 envelope at the gateway and the service', async () => {
    for (const host of ['gateway', 'assets', 'components'] as const) {
      for (const path of ['/nope', '/app/v1/nope', '/cdn/default/default/elsewhere/x/f']) {
        const res = await fetch(`${base(host)}${path}`);
        const body = await res.json().catch(() => 'not JSON');
        expect({ host, path, status: res.status, code: body?.error?.code }).toEqual({
          host,
          path,
          status: 404,
          code: 'NOT_FOUND',
        });
      }
    }
  });
});
