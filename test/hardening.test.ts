// Black-box: hardening checks that need no special set-up — components without a default export,
// malformed input answered 4xx with the envelope.
import fc from 'fast-check';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { PROJECT } from './support/client';
import { rawRequest } from './support/raw-http';
import { useService } from './support/setup';

const app = `/app/v1${PROJECT}`;
const component = (body: string) => `export interface Props { title: string }
export function metadata() { return { title: 'T', description: 'd' }; }
${body}`;

describe('hardening', () => {
  const fx = useService();
  const call = (method: string, path: string, body?: unknown) => fx.api.call(method, path, { token: fx.token, body });

  /** The sandbox's 500 ms CPU deadline can trip on a cold worker of a heavily loaded machine: retry that case only. */
  async function createComponent(body: Record<string, unknown>) {
    let res = await call('POST', `${app}/components`, body);
    for (let i = 0; i < 10 && /longer than/.test(res.body?.error?.details?.content ?? ''); i++) {
      await new Promise((r) => setTimeout(r, 500));
      res = await call('POST', `${app}/components`, body);
    }
    return res;
  }

  it('refuses a view or layout component without `export default` (400, details.content); content creation keeps working', async () => {
    for (const type of ['view', 'layout']) {
      const res = await createComponent({
        name: `NoDefault-${type}`,
        type,
        content: component('export const render = (p: Props) => p.title;'),
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({
        code: 'BAD_REQUEST',
        details: { content: expect.stringMatching(/export default/) },
      });
    }
    const hero = await createComponent({
      name: 'Hero',
      type: 'view',
      content: component("export default (p: Props) => '<h1>' + p.title + '</h1>';"),
    });
    expect(hero.status, JSON.stringify(hero.body)).toBe(201);
    const update = await call('PUT', `${app}/components/${hero.body.id}`, {
      content: component('export function render() {}'),
    });
    expect(update.status).toBe(400);
    const pkg = await call('POST', `${app}/packages`, {});
    expect(pkg.status, JSON.stringify(pkg.body)).toBe(201);
    const type = await call('POST', `${app}/content-types`, {
      name: 'Page',
      schema: { type: 'object' },
      componentIdsAllowList: [hero.body.id],
    });
    await call('POST', `${app}/content-types/${type.body.id}/publish`);
    const entry = await call('POST', `${app}/content`, {
      typeId: type.body.id,
      name: 'e',
      content: { components: [{ type: 'Hero', props: { title: 'x' } }] },
    });
    expect(entry.status, JSON.stringify(entry.body)).toBe(201);
  }, 240_000);

  it('answers malformed paths, query strings and bodies with 4xx and the envelope, never 5xx', async () => {
    const key = (await call('POST', `${app}/api-keys`, { name: 'fuzzy' })).body.key;
    const api = `/api/v1${PROJECT}`;
    const A = { authorization: `Bearer ${fx.token}` };
    const K = { 'x-api-key': key };
    const J = { 'content-type': 'application/json' };
    const deep = '{"a":'.repeat(1500) + '1' + '}'.repeat(1500);
    const cases: [string, string, Record<string, string>, string?][] = [
      ['GET', `${app}/content?limit[]=1`, A],
      ['GET', `${app}/content?limit=1&limit=2`, A],
      ['GET', `${app}/content?limit=99999999999`, A],
      ['GET', `${app}/tags?page=99999999999`, A],
      ['GET', `${app}/tags?page[a]=1`, A],
      ['GET', `${app}/content/.`, A],
      ['GET', `${app}/content/..`, A],
      ['GET', `${app}/components/%2e%2e`, A],
      ['GET', `${app}/content/%E0%A4%A`, A],
      ['GET', `${app}/content/%ED%A0%80`, A],
      ['GET', `${app}/content/%00`, A],
      ['GET', `${app}/tags?search=%00`, A],
      ['GET', `/app/v1/organizations/default/projects/%ff/content`, A],
      ['POST', `${app}/tags`, { ...A, ...J }, '{"name":"a\\u0000b"}'],
      ['POST', `${app}/content-types`, { ...A, ...J }, '{"name":"lone\\ud800","schema":{"type":"object"}}'],
      ['POST', `${app}/content`, { ...A, ...J }, '{"filter":{"name":{"eq":"\\u0000"}}}'],
      ['POST', `${app}/tags`, { ...A, ...J }, deep],
      ['POST', '/graphql', { ...A, ...J }, deep],
      [
        'POST',
        '/graphql',
        { ...A, ...J },
        JSON.stringify({
          query: '{ tags(organizationId: "default", projectId: "default", search: "\\u0000") { data { id } } }',
        }),
      ],
      [
        'POST',
        '/graphql',
        { ...A, ...J },
        JSON.stringify({
          query:
            'query($s: String) { tags(organizationId: "default", projectId: "default", search: $s) { data { id } } }',
          variables: { s: 'a\u0000' },
        }),
      ],
      ['GET', `${app}/events?since=99999-01-01T00:00:00Z`, A],
      ['GET', `${app}/events?since=%2B275760-09-13T00:00:00Z`, A],
      ['GET', `${api}/events?since=%00`, K],
      ['GET', `${api}/events?limit[]=1`, K],
      ['GET', `${api}/content?limit=99999999999`, K],
      ['GET', `${api}/content/%00/resolved`, K],
      ['GET', `/cdn/default/default/assets/%00/x.png`, {}],
      ['GET', `/cdn/default/default/assets/../x.png`, {}],
      ['GET', `/cdn/default/default/assets/%E0%A4%A/x.png`, {}],
      ['POST', `/app/v1/auth/login`, J, '{"email":"a\\u0000","password":"x"}'],
      ['GET', `/app/v1/organizations/default/users?page=-99999999999`, A],
    ];
    const failures: string[] = [];
    for (const [method, path, headers, body] of cases) {
      const res = await rawRequest(fx.service.url, method, path, headers, body);
      const ok =
        res.status >= 400 &&
        res.status < 500 &&
        (typeof res.body?.error?.code === 'string' || typeof res.body?.errors?.[0]?.extensions?.code === 'string');
      if (!ok)
        failures.push(
          `${method} ${path.slice(0, 120)} ${(body ?? '').slice(0, 80)} → ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`,
        );
    }
    // A trailing slash is the same route, not malformed: it must simply not fail.
    for (const path of [`${app}/content/`, `${app}/`]) {
      const res = await rawRequest(fx.service.url, 'GET', path, A);
      if (res.status >= 500) failures.push(`GET ${path} → ${res.status}`);
    }
    expect(failures).toEqual([]);
  });

  it('answers text longer than its column 422 naming the member, and a date filter past year 9999 400 naming it', async () => {
    const long = 'b'.repeat(5000);
    const type = await call('POST', `${app}/content-types`, {
      name: 'Lengths',
      schema: { type: 'object', properties: { title: { type: 'string' } } },
    });
    await call('POST', `${app}/content-types/${type.body.id}/publish`);
    const refused: [string, string, unknown, string][] = [
      ['POST', `${app}/tags`, { name: 'colored', color: long }, '/color'],
      [
        'POST',
        `${app}/content`,
        { typeId: type.body.id, name: 'x', content: {}, tags: ['ok', 'b'.repeat(300)] },
        '/tags/1',
      ],
    ];
    for (const [method, path, body, at] of refused) {
      const res = await call(method, path, body);
      expect(res.status, `${method} ${path}`).toBe(422);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
      expect(res.body.error.details.errors).toContainEqual({ path: at, message: expect.stringMatching(/at most \d+/) });
    }
    expect((await call('GET', `${app}/tags?search=colored`)).body.data).toEqual([]);
    // Component refusals are 400 with a map of member to message (the one exception to 422).
    const hero = { name: 'Long', type: 'view', content: component('export default () => "";'), collectionId: long };
    const refusedComponent = await createComponent(hero);
    expect(refusedComponent.status).toBe(400);
    expect(refusedComponent.body.error.details).toEqual({ collectionId: 'must be at most 64 characters' });
    for (const date of ['99999-01-01', '-000001-01-01T00:00:00Z', '0000-12-31T00:00:00Z']) {
      const res = await call('POST', `${app}/content`, { filter: { createdAt: { gte: date } } });
      expect(res.status, date).toBe(400);
      expect(res.body.error.details).toMatchObject({ field: 'createdAt', operator: 'gte' });
    }
  });

  it('answers a GraphQL body in a charset or encoding it does not read 415 in the envelope, never 500', async () => {
    const query = JSON.stringify({ query: '{ __typename }' });
    const post = (headers: Record<string, string>, body: string | Buffer) =>
      rawRequest(fx.service.url, 'POST', '/graphql', { authorization: `Bearer ${fx.token}`, ...headers }, body);
    for (const headers of [
      { 'content-type': 'application/json; charset=latin1' } as Record<string, string>,
      { 'content-type': 'application/json', 'content-encoding': 'compress' },
    ]) {
      const res = await post(headers, query);
      expect(res.status, JSON.stringify(headers)).toBe(415);
      expect(JSON.stringify(res.body)).toContain('UNSUPPORTED_MEDIA_TYPE');
    }
  });

  it('answers HEAD on REST routes with GET’s status and headers (caching ones included) and no body', async () => {
    const key = (await call('POST', `${app}/api-keys`, { name: 'head' })).body.key;
    // What describes the exchange rather than the resource: each request spends its own rate-limit point.
    const hop = ['date', 'connection', 'keep-alive', 'x-request-id', 'age', 'ratelimit-remaining', 'ratelimit-reset'];
    const headersOf = (res: Response) => Object.fromEntries([...res.headers].filter(([n]) => !hop.includes(n)));
    for (const [path, headers] of [
      [`/api/v1${PROJECT}/content-types?limit=5`, { 'x-api-key': key }],
      [`/api/v1${PROJECT}/content-types/nope`, { 'x-api-key': key }],
      [`${app}/content-types?limit=5`, { authorization: `Bearer ${fx.token}` }],
    ] as const) {
      await fetch(`${fx.service.url}${path}`, { headers }).then((r) => r.arrayBuffer()); // a cache entry, if any
      const get = await fetch(`${fx.service.url}${path}`, { headers });
      await get.arrayBuffer();
      const head = await fetch(`${fx.service.url}${path}`, { method: 'HEAD', headers });
      expect(head.status, path).toBe(get.status);
      expect(headersOf(head), path).toEqual(headersOf(get));
      expect(await head.text()).toBe('');
    }
    expect((await fetch(`${fx.service.url}/app/v1/nowhere`, { method: 'HEAD' })).status).toBe(404);
  });

  /** Writes `bytes` on a fresh connection and reads everything the service answers until it closes. */
  const exchange = (bytes: Buffer) =>
    new Promise<string>((resolve, reject) => {
      const url = new URL(fx.service.url);
      const socket = connect(Number(url.port), url.hostname, () => socket.write(bytes));
      const chunks: Buffer[] = [];
      socket.on('data', (c) => chunks.push(c));
      socket.on('error', reject);
      socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
    });

  it('answers what Node’s HTTP parser refuses with 400, the envelope and a request id, then closes', async () => {
    const line = (method: string, target: string, headers: string[]) =>
      `${method} ${target} HTTP/1.1\r\nHost: x\r\n${headers.map((h) => `${h}\r\n`).join('')}\r\n`;
    const malformed = fc.oneof(
      fc.constantFrom('FOO', 'GETT', 'G\x01T').map((m) => line(m, '/health', [])),
      fc.constantFrom('\x00', '\x01', '\x7f').map((c) => line('GET', '/health', [`X-Bad: a${c}b`])),
      fc.constantFrom('Bad Name', 'Bad\x01Name', '(bad)').map((n) => line('GET', '/health', [`${n}: v`])),
      fc.constantFrom('/he alth', '/he\x00alth', '/\x7f').map((t) => line('GET', t, [])),
      fc.constant(line('GET', '/health', [`X-Big: ${'a'.repeat(20_000)}`])),
      fc
        .constantFrom('zz', '-1', 'ffffffffffffffffff')
        .map(
          (size) =>
            `${line('POST', '/graphql', ['Content-Type: application/json', 'Transfer-Encoding: chunked'])}${size}\r\n{}\r\n0\r\n\r\n`,
        ),
    );
    for (const request of fc.sample(malformed, { seed: 20261126, numRuns: 30 })) {
      const answer = await exchange(Buffer.from(request, 'latin1'));
      const [head, body] = answer.split('\r\n\r\n');
      expect(head, JSON.stringify(request.slice(0, 80))).toMatch(/^HTTP\/1\.1 400 /);
      expect(head).toMatch(/\r\nX-Request-ID: [\w-]+/i);
      expect(head).toMatch(/\r\nContent-Type: application\/json/i);
      expect(JSON.parse(body).error).toMatchObject({ code: 'BAD_REQUEST', details: { reason: expect.any(String) } });
    }
    expect((await fetch(`${fx.service.url}/health`)).status).toBe(200);
  });

  it('never shows the gateway’s query plan, whatever header asks for it', async () => {
    const query = `{ contents(organizationId: "default", projectId: "default") { data { id } } }`;
    for (let i = 0; i < 2; i++) {
      // The second request runs on the subgraph directly (direct-reads.ts): neither may carry the plan.
      const res = await fx.api.graphql(
        query,
        {},
        { token: fx.token, headers: { 'apollo-query-plan-experimental': '1' } },
      );
      expect(res.status).toBe(200);
      expect(res.body.extensions).toBeUndefined();
    }
  });

  it('answers a Range beyond the file with 416, the envelope and Content-Range: bytes */size', async () => {
    const body = new FormData();
    body.append('file', new Blob([Buffer.from('hello range')]), 'r.txt');
    const up = await fetch(`${fx.service.url}${app}/assets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fx.token}` },
      body,
    });
    const asset = await up.json();
    expect(up.status).toBe(201);
    const path = new URL(asset.url).pathname;
    const res = await rawRequest(fx.service.url, 'GET', path, { range: 'bytes=1000-2000' });
    expect(res.status).toBe(416);
    expect(res.headers['content-range']).toBe('bytes */11');
    expect(res.body.error.code).toBe('RANGE_NOT_SATISFIABLE');
    expect((await rawRequest(fx.service.url, 'GET', path, { range: 'bytes=0-4' })).body).toBe('hello');
  });

  it('sends nosniff, frame protection and no-store on admin and sign-in answers; refuses non-JSON REST bodies with 415', async () => {
    const login = await fx.api.call('POST', '/app/v1/auth/login', {
      body: { email: 'nobody@example.com', password: 'wrong wrong wrong' },
    });
    const admin = await fx.api.call('GET', `${app}/tags`, { token: fx.token });
    const graphql = await fx.api.graphql('{ __typename }', undefined, { token: fx.token });
    for (const res of [login, admin, graphql]) {
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('content-security-policy')).toBe("frame-ancestors 'none'");
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
    const plain = await fx.api.call('POST', `${app}/tags`, {
      token: fx.token,
      rawBody: '{"name":"plain"}',
      headers: { 'content-type': 'text/plain' },
    });
    expect(plain.status).toBe(415);
    expect(plain.body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    const json = await fx.api.call('POST', `${app}/tags`, {
      token: fx.token,
      rawBody: '{"name":"json"}',
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(json.status).toBe(201);
  });
});
