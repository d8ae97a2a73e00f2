// Black-box: the foundation slice through the real service over HTTP (REST and GraphQL alike).
import { describe, expect, it } from 'vitest';
import { PROJECT } from './support/client';
import { useService } from './support/setup';

const schema = { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] };

describe('foundation over HTTP (real PostgreSQL)', () => {
  const fx = useService();

  it('GET /health answers exactly {status, version, timestamp}', async () => {
    const res = await fx.api.call('GET', '/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok', version: expect.any(String), timestamp: expect.any(String) });
    expect(new Date(res.body.timestamp).toISOString()).toBe(res.body.timestamp);
  });

  it('echoes X-Request-ID or generates one, and answers Content-Language', async () => {
    const echoed = await fx.api.call('GET', '/health', { headers: { 'x-request-id': 'trace-123' } });
    expect(echoed.headers.get('x-request-id')).toBe('trace-123');
    const generated = await fx.api.call('GET', '/health');
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const german = await fx.api.call('GET', `/app/v1${PROJECT}/content-types`, {
      headers: { 'accept-language': 'de-CH, de;q=0.9' },
    });
    expect(german.headers.get('content-language')).toBe('de');
    expect(german.body.error.message).toBe('Die Authentifizierung fehlt, ist ungültig, abgelaufen oder widerrufen.');
  });

  it('logs in through REST and GraphQL; wrong credentials are 401 without saying which part was wrong', async () => {
    const rest = await fx.api.call('POST', '/app/v1/auth/login', {
      body: { email: 'admin@example.com', password: 'nope' },
    });
    const unknown = await fx.api.call('POST', '/app/v1/auth/login', {
      body: { email: 'nobody@example.com', password: 'nope' },
    });
    expect(rest.status).toBe(401);
    expect(rest.body).toEqual(unknown.body);
    expect(rest.body.error.code).toBe('UNAUTHORIZED');

    const ok = await fx.api.call('POST', '/app/v1/auth/login', {
      body: { email: 'admin@example.com', password: 'correct horse battery staple' },
    });
    expect(ok.body).toMatchObject({
      token: expect.any(String),
      expiresAt: expect.any(String),
      user: { email: 'admin@example.com' },
    });

    const gql = await fx.api.graphql(
      `mutation($input: LoginInput!) { login(input: $input) { token user { email } } }`,
      {
        input: { email: 'admin@example.com', password: 'correct horse battery staple' },
      },
    );
    expect(gql.body.data.login.user.email).toBe('admin@example.com');
  });

  it('refuses a missing, malformed or tampered token with 401 on REST and GraphQL', async () => {
    const missing = await fx.api.call('GET', `/app/v1${PROJECT}/content-types`);
    expect(missing.status).toBe(401);
    expect(missing.body.error.code).toBe('UNAUTHORIZED');
    const tampered = await fx.api.call('GET', `/app/v1${PROJECT}/content-types`, {
      token: `${fx.token.slice(0, -2)}xx`,
    });
    expect(tampered.status).toBe(401);
    const gqlMissing = await fx.api.graphql(
      `{ contentTypes(organizationId: "default", projectId: "default") { data { id } } }`,
    );
    expect(gqlMissing.status).toBe(401);
    expect(gqlMissing.body.errors?.[0].extensions?.code).toBe('UNAUTHORIZED');
    const gqlBad = await fx.api.graphql(`{ me { id } }`, {}, { token: 'not-a-jwt' });
    expect(gqlBad.status).toBe(401);
    expect(gqlBad.body.errors?.[0].extensions?.code).toBe('UNAUTHORIZED');
  });

  it('creates, reads, lists and updates content types through REST', async () => {
    const created = await fx.api.call('POST', `/app/v1${PROJECT}/content-types`, {
      token: fx.token,
      body: { name: 'Article', schema },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'Article',
      status: 'draft',
      version: null,
      lastPublishedVersion: null,
      packageVersion: '0.0.0',
    });
    expect(created.body.createdBy).toEqual(expect.any(String));

    const got = await fx.api.call('GET', `/app/v1${PROJECT}/content-types/${created.body.id}`, { token: fx.token });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(created.body);

    const updated = await fx.api.call('PUT', `/app/v1${PROJECT}/content-types/${created.body.id}`, {
      token: fx.token,
      body: { description: 'News' },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ name: 'Article', description: 'News' });

    const list = await fx.api.call('GET', `/app/v1${PROJECT}/content-types`, { token: fx.token });
    expect(list.status).toBe(200);
    expect(list.body.data.map((t: { name: string }) => t.name)).toContain('Article');
    expect(list.body.pagination).toEqual({});
  });

  it('does the same through GraphQL, with createdBy resolved by the access subgraph', async () => {
    const res = await fx.api.graphql(
      `mutation($input: CreateContentTypeInput!) {
        createContentType(organizationId: "default", projectId: "default", input: $input) { id name createdBy { id email name } }
      }`,
      { input: { name: 'Page', schema } },
      { token: fx.token },
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.createContentType.createdBy).toMatchObject({
      email: 'admin@example.com',
      name: 'Administrator',
    });
    const list = await fx.api.graphql(
      `{ contentTypes(organizationId: "default", projectId: "default", limit: 100) { data { name } } }`,
      {},
      { token: fx.token },
    );
    expect(list.body.data.contentTypes.data.map((t: { name: string }) => t.name)).toEqual(
      expect.arrayContaining(['Page', 'Article']),
    );
  });

  it('paginates: limit, lastKey/afterKey, lastKey only when more, tampered cursor 400', async () => {
    for (const name of ['P1', 'P2', 'P3'])
      await fx.api.call('POST', `/app/v1${PROJECT}/content-types`, { token: fx.token, body: { name, schema } });
    const first = await fx.api.call('GET', `/app/v1${PROJECT}/content-types?limit=2`, { token: fx.token });
    expect(first.body.data).toHaveLength(2);
    const lastKey = first.body.pagination.lastKey;
    expect(lastKey).toEqual(expect.any(String));
    const second = await fx.api.call(
      'GET',
      `/app/v1${PROJECT}/content-types?limit=2&afterKey=${encodeURIComponent(lastKey)}`,
      { token: fx.token },
    );
    expect(second.body.data[0].id).not.toBe(first.body.data[1].id);

    const tampered = await fx.api.call(
      'GET',
      `/app/v1${PROJECT}/content-types?lastKey=${encodeURIComponent(lastKey.slice(1))}`,
      { token: fx.token },
    );
    expect(tampered.status).toBe(400);
    expect(tampered.body.error).toMatchObject({ code: 'BAD_REQUEST', details: { parameter: 'lastKey' } });
    for (const bad of ['limit=0', 'limit=101', 'limit=abc']) {
      const res = await fx.api.call('GET', `/app/v1${PROJECT}/content-types?${bad}`, { token: fx.token });
      expect(res.status, bad).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'BAD_REQUEST', details: { parameter: 'limit' } });
    }
  });

  it('answers spec-shaped errors: 400 malformed JSON, 422 missing member, 409 duplicate, 404 unknown route and role', async () => {
    const malformed = await fx.api.call('POST', `/app/v1${PROJECT}/content-types`, {
      token: fx.token,
      rawBody: '{"name": ',
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe('BAD_REQUEST');

    const missing = await fx.api.call('POST', `/app/v1${PROJECT}/content-types`, {
      token: fx.token,
      body: { name: 'NoSchema' },
    });
    expect(missing.status).toBe(422);
    expect(missing.body.error.code).toBe('VALIDATION_FAILED');
    expect(missing.body.error.details.errors).toEqual([
      { path: expect.any(String), message: expect.stringContaining('schema') },
    ]);

    const wrongType = await fx.api.call('POST', `/app/v1${PROJECT}/content-types`, {
      token: fx.token,
      body: { name: 42, schema },
    });
    expect(wrongType.status).toBe(422);
    expect(wrongType.body.error.details.errors[0].path).toBe('/name');

    const duplicate = await fx.api.call('POST', `/app/v1${PROJECT}/content-types`, {
      token: fx.token,
      body: { name: 'Article', schema },
    });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.error.code).toBe('NAME_TAKEN');

    const route = await fx.api.call('GET', '/app/v1/nothing-here', { token: fx.token });
    expect(route.status).toBe(404);
    expect(route.body.error.code).toBe('NOT_FOUND');
    const outside = await fx.api.call('GET', '/nothing-here');
    expect(outside.status).toBe(404);

    const role = await fx.api.call('GET', '/app/v1/organizations/default/roles/does-not-exist', { token: fx.token });
    expect(role.status).toBe(404);
    expect(role.body.error.code).toBe('NOT_FOUND');
    const unknownType = await fx.api.call('GET', `/app/v1${PROJECT}/content-types/does-not-exist`, { token: fx.token });
    expect(unknownType.status).toBe(404);
  });

  it('gets the Owner role with every permission flag', async () => {
    const roles = await fx.api.call('GET', '/app/v1/organizations/default/roles', { token: fx.token });
    expect(roles.body.pagination).toEqual({ page: 1, limit: 20, total: 1 });
    const owner = roles.body.data[0];
    const role = await fx.api.call('GET', `/app/v1/organizations/default/roles/${owner.id}`, { token: fx.token });
    expect(role.status).toBe(200);
    expect(role.body).toMatchObject({
      name: 'Owner',
      permissions: { content: { publish: true }, organizations: { delete: true } },
    });
  });

  it('never leaks internals: every error body is the envelope without stack or SQL', async () => {
    const res = await fx.api.call('POST', `/app/v1${PROJECT}/content-types`, {
      token: fx.token,
      body: { name: 'x'.repeat(300), schema },
    });
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.body)).not.toMatch(/at .*\.js:\d+|select |insert /i);
  });
});
