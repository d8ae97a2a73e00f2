// Black-box: access control over HTTP — API keys, roles and 403s, no privilege escalation, revocation, scoped tokens, tenancy walk, GraphQL limits.
import { SUBGRAPHS } from '@cp/gateway';
import { createHash, randomUUID } from 'node:crypto';
import { Client as Pg } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, PROJECT } from './support/client';
import { JWT_SECRET, runCli, startService, type TestService } from './support/service';

/** Read routes that take no request without one of their parameters: what each is called with here. */
const REQUIRED_QUERY: Record<string, string> = { 'Query.sync': '?initial=true' };

const ORG = '/app/v1/organizations/default';
const KEYS = `/app/v1${PROJECT}/api-keys`;
const CONTENT_TYPES = `/app/v1${PROJECT}/content-types`;
const FOREIGN_PASSWORD = 'moss-lantern-quiet-77';

const MAX_RESPONSE_BYTES = 100_000;

describe('access control over HTTP (real PostgreSQL)', () => {
  let service: TestService;
  let api: Client;
  let token: string;
  let sql: Pg;
  /**
   * Ids of a second organization: every one of them must look unknown to the default admin. The operator creates it
   * with its Owner role and owner (`content-platform organizations create`: no API route creates organizations);
   * the owner creates the project and the API key over HTTP.
   */
  const foreign = { org: 'other-org', project: '', role: '', user: '', key: '' };

  /** A role and a user holding it, created by the admin; returns the user's token and ids. */
  async function userWith(permissions: object) {
    const role = await api.call('POST', `${ORG}/roles`, { token, body: { name: `r-${randomUUID()}`, permissions } });
    expect(role.status).toBe(201);
    const email = `${randomUUID()}@example.com`;
    const user = await api.call('POST', `${ORG}/users`, {
      token,
      body: { email, name: 'U', password: 'grey-otter-kettle-41', roleId: role.body.id },
    });
    expect(user.status).toBe(201);
    return {
      token: await api.login(email, 'grey-otter-kettle-41'),
      userId: user.body.id as string,
      roleId: role.body.id as string,
      email,
    };
  }

  beforeAll(async () => {
    // A small response cap, so a large introspection answer shows the cap; every other answer here is far below.
    service = await startService({ env: { MAX_RESPONSE_BYTES: String(MAX_RESPONSE_BYTES) } });
    api = new Client(service.url);
    token = await api.login();
    sql = new Pg({ connectionString: service.databaseUrl });
    await sql.connect();
    const settings = { DATA_DIR: service.env.DATA_DIR, JWT_SECRET, DATABASE_URL: service.databaseUrl };
    const created = await runCli(settings, [
      'organizations',
      'create',
      'Other',
      '--id',
      foreign.org,
      '--owner-email',
      'o@other.example',
      '--owner-password',
      FOREIGN_PASSWORD,
      '--json',
    ]);
    expect(created.code, created.stderr).toBe(0);
    const tenant = JSON.parse(created.stdout);
    foreign.role = tenant.roleId;
    foreign.user = tenant.owner.id;
    const foreignToken = await api.login('o@other.example', FOREIGN_PASSWORD);
    const foreignOrg = `/app/v1/organizations/${foreign.org}`;
    const project = await api.call('POST', `${foreignOrg}/projects`, { token: foreignToken, body: { name: 'P' } });
    expect(project.status).toBe(201);
    foreign.project = project.body.id;
    const keys = `${foreignOrg}/projects/${foreign.project}/api-keys`;
    const key = await api.call('POST', keys, { token: foreignToken, body: { name: 'k' } });
    expect(key.status).toBe(201);
    foreign.key = key.body.id;
  });
  afterAll(async () => {
    await sql?.end();
    await service?.destroy();
  });

  describe('API keys', () => {
    it('shows the key once (201), never in list or get, and stores only its SHA-256', async () => {
      const created = await api.call('POST', KEYS, { token, body: { name: 'web', description: 'site' } });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({
        name: 'web',
        description: 'site',
        status: 'active',
        projectId: 'default',
        lastUsed: null,
      });
      expect(created.body.key).toMatch(/^cpk_live_[A-Za-z0-9_-]{43}$/);

      const list = await api.call('GET', `${KEYS}?limit=100`, { token });
      expect(list.body.pagination).toMatchObject({ page: 1, limit: 100 });
      const listed = list.body.data.find((k: { id: string }) => k.id === created.body.id);
      expect(listed).toBeDefined();
      expect(listed).not.toHaveProperty('key');
      const got = await api.call('GET', `${KEYS}/${created.body.id}`, { token });
      expect(got.status).toBe(200);
      expect(got.body).not.toHaveProperty('key');
      expect(JSON.stringify(got.body)).not.toContain(created.body.key);

      const gql = await api.graphql(
        `{ apiKey(organizationId: "default", projectId: "default", id: "${created.body.id}") { id key } }`,
        {},
        { token },
      );
      expect(gql.body.errors?.[0]?.extensions?.code).toBe('BAD_REQUEST'); // `key` is not a field of ApiKey at all

      const row = await sql.query('select * from api_key where id = $1', [created.body.id]);
      expect(row.rows[0].key_hash).toBe(createHash('sha256').update(created.body.key).digest('hex'));
      expect(JSON.stringify(row.rows[0])).not.toContain(created.body.key);
    });

    it('authenticates /api/v1 and GraphQL reads, is 401 on /app/v1, 403 on admin mutations, and records lastUsed', async () => {
      const { body } = await api.call('POST', KEYS, { token, body: { name: 'reader' } });
      const apiKey = body.key as string;
      expect((await api.call('GET', `/api/v1${PROJECT}/content-types`, { apiKey })).status).toBe(200);
      const read = await api.graphql(
        `{ contentTypes(organizationId: "default", projectId: "default") { data { id } } }`,
        {},
        { apiKey },
      );
      expect(read.status).toBe(200);
      expect(read.body.data.contentTypes).toBeDefined();

      const admin = await api.call('GET', CONTENT_TYPES, { apiKey });
      expect(admin.status).toBe(401);
      expect(admin.body.error.code).toBe('UNAUTHORIZED');
      const write = await api.graphql(
        `mutation { createContentType(organizationId: "default", projectId: "default", input: {name: "X", schema: {type: "object"}}) { id } }`,
        {},
        { apiKey },
      );
      expect(write.status).toBe(403);
      expect(write.body.errors?.[0].extensions).toMatchObject({
        code: 'FORBIDDEN',
        details: { resource: 'contentTypes', action: 'create' },
      });
      const keyForKey = await api.graphql(
        `mutation { createApiKey(organizationId: "default", projectId: "default", input: {name: "x"}) { key } }`,
        {},
        { apiKey },
      );
      expect(keyForKey.body.errors?.[0].extensions?.code).toBe('FORBIDDEN');
      // Another project's path with this key: unknown, not forbidden.
      expect(
        (await api.call('GET', `/api/v1/organizations/default/projects/${foreign.project}/content-types`, { apiKey }))
          .status,
      ).toBe(404);

      // `lastUsed` is written off the request path, in batches every few seconds.
      const deadline = Date.now() + 30_000;
      let after = await api.call('GET', `${KEYS}/${body.id}`, { token });
      while (!after.body.lastUsed && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 500));
        after = await api.call('GET', `${KEYS}/${body.id}`, { token });
      }
      expect(new Date(after.body.lastUsed).getTime()).toBeGreaterThan(Date.now() - 60_000);
    });

    it('refuses a revoked key at once (401) on REST and GraphQL, and unknown or malformed keys alike', async () => {
      const { body } = await api.call('POST', KEYS, { token, body: { name: 'to revoke' } });
      expect((await api.call('GET', `/api/v1${PROJECT}/content-types`, { apiKey: body.key })).status).toBe(200);
      const revoked = await api.call('POST', `${KEYS}/${body.id}/revoke`, { token });
      expect(revoked.status).toBe(200);
      expect(revoked.body.status).toBe('revoked');
      const rest = await api.call('GET', `/api/v1${PROJECT}/content-types`, { apiKey: body.key });
      expect(rest.status).toBe(401);
      expect(rest.body.error.code).toBe('UNAUTHORIZED');
      const gql = await api.graphql(
        `{ contentTypes(organizationId: "default", projectId: "default") { data { id } } }`,
        {},
        { apiKey: body.key },
      );
      expect(gql.status).toBe(401);
      expect(gql.body.errors?.[0].extensions?.code).toBe('UNAUTHORIZED');
      for (const apiKey of [`${body.key.slice(0, -1)}A`, 'cpk_live_short', 'nonsense']) {
        expect((await api.call('GET', `/api/v1${PROJECT}/content-types`, { apiKey })).status).toBe(401);
      }
    });
  });

  describe('roles and permissions', () => {
    it('answers 403 with details.resource/action on REST and GraphQL when the role lacks the flag', async () => {
      const reader = await userWith({ contentTypes: { read: true } });
      expect((await api.call('GET', CONTENT_TYPES, { token: reader.token })).status).toBe(200);
      const rest = await api.call('POST', CONTENT_TYPES, {
        token: reader.token,
        body: { name: 'N', schema: { type: 'object' } },
      });
      expect(rest.status).toBe(403);
      expect(rest.body.error).toMatchObject({
        code: 'FORBIDDEN',
        details: { resource: 'contentTypes', action: 'create' },
      });
      const gql = await api.graphql(
        `{ users(organizationId: "default") { data { id } } }`,
        {},
        { token: reader.token },
      );
      expect(gql.status).toBe(403);
      expect(gql.body.errors?.[0].extensions).toMatchObject({
        code: 'FORBIDDEN',
        details: { resource: 'users', action: 'read' },
      });
      for (const [method, path, body] of [
        [
          'POST',
          `${ORG}/users`,
          { email: 'a@b.example', name: 'A', password: 'grey-otter-kettle-41', roleId: reader.roleId },
        ],
        ['POST', `${ORG}/roles`, { name: 'x', permissions: {} }],
        ['POST', KEYS, { name: 'x' }],
        ['PUT', ORG, { name: 'x' }],
        ['POST', `${ORG}/projects`, { name: 'x' }],
      ] as const) {
        const res = await api.call(method, path, { token: reader.token, body });
        expect(res.status, `${method} ${path}`).toBe(403);
      }
    });

    it('validates permissions against the spec’s Role table (422 with JSON Pointer paths)', async () => {
      const res = await api.call('POST', `${ORG}/roles`, {
        token,
        body: { name: 'Bad', permissions: { content: { read: true, fly: true }, widgets: {}, users: { read: 'yes' } } },
      });
      expect(res.status).toBe(422);
      expect(res.body.error.details.errors.map((e: { path: string }) => e.path).sort()).toEqual([
        '/permissions/content/fly',
        '/permissions/users/read',
        '/permissions/widgets',
      ]);
    });

    it('refuses privilege escalation: no role, grant or user above the caller (403)', async () => {
      const manager = await userWith({
        users: { create: true, read: true, update: true, delete: true },
        roles: { create: true, read: true, update: true, delete: true },
      });
      const roles = await api.call('GET', `${ORG}/roles?limit=100`, { token });
      const owner = roles.body.data.find((r: { name: string }) => r.name === 'Owner');
      const admin = await api.call('GET', '/app/v1/auth/me', { token });

      const wider = await api.call('POST', `${ORG}/roles`, {
        token: manager.token,
        body: { name: 'Wider', permissions: { content: { publish: true } } },
      });
      expect(wider.status).toBe(403);
      expect(wider.body.error.details).toEqual({ resource: 'content', action: 'publish' });
      const widenOwn = await api.call('PUT', `${ORG}/roles/${manager.roleId}`, {
        token: manager.token,
        body: { permissions: { ...{ users: { read: true } }, apiKeys: { create: true } } },
      });
      expect(widenOwn.status).toBe(403);
      const asOwner = await api.call('POST', `${ORG}/users`, {
        token: manager.token,
        body: { email: 'x@escalate.example', name: 'X', password: 'grey-otter-kettle-41', roleId: owner.id },
      });
      expect(asOwner.status).toBe(403);
      const promoteSelf = await api.call('PUT', `${ORG}/users/${manager.userId}`, {
        token: manager.token,
        body: { roleId: owner.id },
      });
      expect(promoteSelf.status).toBe(403);
      const takeOver = await api.call('PUT', `${ORG}/users/${admin.body.id}`, {
        token: manager.token,
        body: { password: 'stolen-walrus-ticket-9' },
      });
      expect(takeOver.status).toBe(403);
      const gql = await api.graphql(
        `mutation($id: ID!) { updateRole(organizationId: "default", id: $id, input: {permissions: {content: {delete: true}}}) { id } }`,
        { id: manager.roleId },
        { token: manager.token },
      );
      expect(gql.body.errors?.[0].extensions?.code).toBe('FORBIDDEN');
      // Within its own rights the manager may act.
      const narrower = await api.call('POST', `${ORG}/roles`, {
        token: manager.token,
        body: { name: `Narrow-${randomUUID()}`, permissions: { users: { read: true } } },
      });
      expect(narrower.status).toBe(201);
    });

    it('keeps the Owner role with a user and intact (409), and refuses deleting a role in use', async () => {
      const admin = await api.call('GET', '/app/v1/auth/me', { token });
      const roles = await api.call('GET', `${ORG}/roles?limit=100`, { token });
      const owner = roles.body.data.find((r: { name: string }) => r.name === 'Owner');
      expect((await api.call('DELETE', `${ORG}/users/${admin.body.id}`, { token })).status).toBe(409);
      expect((await api.call('DELETE', `${ORG}/roles/${owner.id}`, { token })).status).toBe(409);
      expect((await api.call('PUT', `${ORG}/roles/${owner.id}`, { token, body: { permissions: {} } })).status).toBe(
        409,
      );
      const someone = await userWith({ content: { read: true } });
      expect(
        (await api.call('PUT', `${ORG}/users/${admin.body.id}`, { token, body: { roleId: someone.roleId } })).status,
      ).toBe(409);
      expect((await api.call('DELETE', `${ORG}/roles/${someone.roleId}`, { token })).status).toBe(409);
      expect((await api.call('DELETE', `${ORG}/users/${someone.userId}`, { token })).status).toBe(200);
      expect((await api.call('DELETE', `${ORG}/roles/${someone.roleId}`, { token })).status).toBe(200);
      expect((await api.call('GET', `${ORG}/roles/${someone.roleId}`, { token })).status).toBe(404);
    });

    it('records an event for every access write', async () => {
      const { rows } = await sql.query(`select distinct type from event where organization_id = 'default'`);
      const types = rows.map((r: { type: string }) => r.type);
      for (const t of [
        'api-keys.created',
        'api-keys.updated',
        'roles.created',
        'roles.deleted',
        'users.created',
        'users.deleted',
      ])
        expect(types).toContain(t);
    });
  });

  describe('token revocation and scoped tokens', () => {
    it('revokes every older token on a password change and on removal of the user', async () => {
      const user = await userWith({ contentTypes: { read: true } });
      const second = await api.login(user.email, 'grey-otter-kettle-41');
      const changed = await api.call('PUT', `${ORG}/users/${user.userId}`, {
        token,
        body: { password: 'amber-finch-lantern-72' },
      });
      expect(changed.status).toBe(200);
      for (const old of [user.token, second]) {
        expect((await api.call('GET', '/app/v1/auth/me', { token: old })).status).toBe(401);
        expect((await api.graphql('{ me { id } }', {}, { token: old })).status).toBe(401);
      }
      const fresh = await api.login(user.email, 'amber-finch-lantern-72');
      expect((await api.call('GET', '/app/v1/auth/me', { token: fresh })).status).toBe(200);
      expect((await api.call('DELETE', `${ORG}/users/${user.userId}`, { token })).status).toBe(200);
      expect((await api.call('GET', '/app/v1/auth/me', { token: fresh })).status).toBe(401);
    });

    it('issues project-scoped tokens never wider than the caller', async () => {
      const issued = await api.call('POST', '/app/v1/auth/tokens', {
        token,
        body: { projectId: 'default', expiresIn: 120 },
      });
      expect(issued.status).toBe(201);
      expect(issued.body.projectId).toBe('default');
      expect(new Date(issued.body.expiresAt).getTime()).toBeLessThanOrEqual(Date.now() + 121_000);
      const scoped = issued.body.token as string;
      expect((await api.call('GET', CONTENT_TYPES, { token: scoped })).status).toBe(200);
      const created = await api.call('POST', `${ORG}/projects`, { token, body: { name: 'Second' } });
      expect(
        (await api.call('GET', `${ORG}/projects/${created.body.id}/content-types`, { token: scoped })).status,
      ).toBe(404);
      expect((await api.call('GET', `${ORG}/projects/${created.body.id}`, { token: scoped })).status).toBe(404);
      expect(
        (
          await api.call('POST', `${ORG}/users`, {
            token: scoped,
            body: { email: 'q@q.example', name: 'Q', password: 'grey-otter-kettle-41', roleId: 'x' },
          })
        ).status,
      ).toBe(403);
      // Not wider: neither another project nor a longer life than the caller's token.
      expect(
        (await api.call('POST', '/app/v1/auth/tokens', { token: scoped, body: { projectId: created.body.id } })).status,
      ).toBe(404);
      const longer = await api.call('POST', '/app/v1/auth/tokens', { token: scoped, body: { expiresIn: 3600 } });
      expect(longer.status).toBe(422);
      expect(longer.body.error.details.errors[0].path).toBe('/expiresIn');
      expect(
        (await api.call('POST', '/app/v1/auth/tokens', { token, body: { projectId: foreign.project } })).status,
      ).toBe(404);
      const gql = await api.graphql(
        'mutation { issueToken(input: {expiresIn: 60}) { token expiresAt projectId } }',
        {},
        { token: scoped },
      );
      expect(gql.body.data.issueToken.projectId).toBe('default');
    });
  });

  describe('tenancy: another organization’s ids look unknown (404) on every route', () => {
    /** REST routes with `:organizationId`, `:projectId` and `:id` filled with the second organization's ids. */
    function foreignRoutes() {
      const routes = Object.assign({}, ...SUBGRAPHS.map((s) => s.routes)) as Record<
        string,
        { app?: { method: string; path: string }; api?: { method: string; path: string } }
      >;
      const out: { family: 'app' | 'api'; field: string; method: string; path: string }[] = [];
      for (const [field, byFamily] of Object.entries(routes)) {
        for (const family of ['app', 'api'] as const) {
          const route = byFamily[family];
          if (!route || !route.path.includes(':')) continue;
          const id = field.toLowerCase().includes('user')
            ? foreign.user
            : field.toLowerCase().includes('role')
              ? foreign.role
              : field.toLowerCase().includes('apikey')
                ? foreign.key
                : randomUUID();
          const fill = (org: string, project: string) =>
            route.path
              .replace(':organizationId', org)
              .replace(':projectId', project)
              .replace(/:id\b/, route.path.startsWith('/organizations/:id') ? foreign.org : id)
              .replace(/:[A-Za-z]+/g, randomUUID());
          out.push({ family, field, method: route.method, path: fill(foreign.org, foreign.project) });
          // The other organization's project (or resource id) under our own organization.
          if (route.path.includes(':projectId') || route.path.includes(':id'))
            out.push({ family, field, method: route.method, path: fill('default', foreign.project) });
        }
      }
      return out;
    }

    it('REST: every route with a foreign id answers 404 (mutations: 404, or 422 before any lookup)', async () => {
      const { body } = await api.call('POST', KEYS, { token, body: { name: 'tenancy' } });
      const routes = foreignRoutes();
      expect(routes.length).toBeGreaterThan(20);
      for (const route of routes) {
        const credential = route.family === 'app' ? { token } : { apiKey: body.key as string };
        const res = await api.call(route.method, `/${route.family}/v1${route.path}`, {
          ...credential,
          body: route.method === 'GET' || route.method === 'DELETE' ? undefined : { name: 'x' },
        });
        const label = `${route.method} /${route.family}/v1${route.path} (${route.field})`;
        if (
          route.method === 'GET' ||
          route.method === 'DELETE' ||
          route.field.startsWith('Mutation.revoke') ||
          route.field.startsWith('Mutation.update')
        ) {
          if (res.status === 422) continue; // a body member of the wrong shape is refused before tenancy is looked at; nothing leaks
          expect(res.status, label).toBe(404);
        } else {
          expect([404, 422], label).toContain(res.status);
        }
        expect(JSON.stringify(res.body), label).not.toContain('o@other.example');
      }
    });

    it('GraphQL: every access field with a foreign id is NOT_FOUND, and nothing of it changes', async () => {
      const queries = [
        `{ organization(id: "${foreign.org}") { id } }`,
        `{ projects(organizationId: "${foreign.org}") { data { id } } }`,
        `{ project(organizationId: "default", id: "${foreign.project}") { id } }`,
        `{ users(organizationId: "${foreign.org}") { data { id } } }`,
        `{ user(organizationId: "default", id: "${foreign.user}") { id } }`,
        `{ roles(organizationId: "${foreign.org}") { data { id } } }`,
        `{ role(organizationId: "default", id: "${foreign.role}") { id } }`,
        `{ apiKeys(organizationId: "${foreign.org}", projectId: "${foreign.project}") { data { id } } }`,
        `{ apiKey(organizationId: "default", projectId: "default", id: "${foreign.key}") { id } }`,
        `{ contentTypes(organizationId: "default", projectId: "${foreign.project}") { data { id } } }`,
        `mutation { updateUser(organizationId: "default", id: "${foreign.user}", input: {name: "x"}) { id } }`,
        `mutation { deleteRole(organizationId: "default", id: "${foreign.role}") { id } }`,
        `mutation { revokeApiKey(organizationId: "default", projectId: "default", id: "${foreign.key}") { id } }`,
        `mutation { deleteProject(organizationId: "default", id: "${foreign.project}") { id } }`,
        `mutation { updateOrganization(id: "${foreign.org}", input: {name: "x"}) { id } }`,
      ];
      for (const query of queries) {
        const res = await api.graphql(query, {}, { token });
        expect(res.body.errors?.[0]?.extensions?.code, query).toBe('NOT_FOUND');
        expect(res.status, query).toBe(404);
      }
      const { rows } = await sql.query(`select status from api_key where id = $1`, [foreign.key]);
      expect(rows[0].status).toBe('active');
    });
  });

  describe('the other direction, and deleting an organization', () => {
    it('a foreign owner sees the default organization’s ids as unknown; deleting its organization ends its tokens', async () => {
      const foreignToken = await api.login('o@other.example', FOREIGN_PASSWORD);
      const admin = await api.call('GET', '/app/v1/auth/me', { token });
      const { body: key } = await api.call('POST', KEYS, { token, body: { name: 'mine' } });
      for (const path of [
        ORG,
        `${ORG}/users/${admin.body.id}`,
        `${ORG}/projects/default`,
        `${KEYS}/${key.id}`,
        CONTENT_TYPES,
        `/app/v1/organizations/${foreign.org}/users/${admin.body.id}`,
      ]) {
        const res = await api.call('GET', path, { token: foreignToken });
        expect(res.status, path).toBe(404);
        expect(JSON.stringify(res.body)).not.toContain('admin@example.com');
      }
      expect((await api.call('POST', `${KEYS}/${key.id}/revoke`, { token: foreignToken })).status).toBe(404);
      expect((await api.call('GET', `${KEYS}/${key.id}`, { token })).body.status).toBe('active');
      const own = await api.call('GET', '/app/v1/organizations', { token: foreignToken });
      expect(own.body.data.map((o: { id: string }) => o.id)).toEqual([foreign.org]);

      const renamed = await api.call('PUT', `/app/v1/organizations/${foreign.org}`, {
        token: foreignToken,
        body: { name: 'Renamed' },
      });
      expect(renamed.body.name).toBe('Renamed');
      expect((await api.call('DELETE', `/app/v1/organizations/${foreign.org}`, { token: foreignToken })).status).toBe(
        200,
      );
      expect((await api.call('GET', '/app/v1/auth/me', { token: foreignToken })).status).toBe(401);
      const { rows } = await sql.query(
        'select (select count(*)::int from "user" where organization_id = $1) users, (select count(*)::int from project where organization_id = $1) projects',
        [foreign.org],
      );
      expect(rows[0]).toEqual({ users: 0, projects: 0 });
      expect((await api.call('GET', '/app/v1/auth/me', { token })).status).toBe(200);
    });
  });

  describe('GraphQL abuse limits', () => {
    it('refuses too deep, too many aliases, batched and oversized documents with BAD_REQUEST and 400', async () => {
      const deep = await api.graphql('{ me { a { b { c { d { e { f { g } } } } } } } }', {}, { token });
      expect(deep.status).toBe(400);
      expect(deep.body.errors?.some((e) => e.extensions?.code === 'BAD_REQUEST' && /depth/i.test(e.message))).toBe(
        true,
      );
      const aliases = await api.graphql(
        `{ ${Array.from({ length: 16 }, (_, i) => `a${i}: me { id }`).join(' ')} }`,
        {},
        { token },
      );
      expect(aliases.status).toBe(400);
      expect(aliases.body.errors?.[0].extensions?.code).toBe('BAD_REQUEST');
      const batch = await api.call('POST', '/graphql', {
        token,
        body: [{ query: '{ me { id } }' }, { query: '{ me { id } }' }],
      });
      expect(batch.status).toBe(400);
      const tokens = await api.graphql(`{ me { ${'id '.repeat(1200)} } }`, {}, { token });
      expect(tokens.status).toBe(400);
      expect(tokens.body.errors?.[0].extensions?.code).toBe('BAD_REQUEST');
      const long = await api.graphql(`{ me { id } } # ${'x'.repeat(16_000)}`, {}, { token });
      expect(long.status).toBe(400);
      expect(long.body.errors?.[0].extensions?.code).toBe('BAD_REQUEST');
    });

    it('counts list sizes in the cost and refuses oversized answers, before execution, with 400', async () => {
      const contents = (n: number) =>
        `contents(organizationId: "default", projectId: "default", limit: ${n}) { data { id name content createdBy { id email } } }`;
      const aliased = await api.graphql(
        `{ ${Array.from({ length: 15 }, (_, i) => `a${i}: ${contents(100)}`).join(' ')} }`,
        {},
        { token },
      );
      expect(aliased.status).toBe(400);
      expect(aliased.body.errors?.[0]).toMatchObject({
        extensions: { code: 'BAD_REQUEST', details: { limit: 'cost' } },
      });
      expect(aliased.body.data).toBeUndefined();
      // The size may come in a variable, too.
      const query = `query($n: Int) { ${Array.from({ length: 15 }, (_, i) => `a${i}: contents(organizationId: "default", projectId: "default", limit: $n) { data { id name content } }`).join(' ')} }`;
      expect((await api.graphql(query, { n: 100 }, { token })).status).toBe(400);
      // The same shapes at sizes that add up to little, and one full page, are fine.
      expect((await api.graphql(query, { n: 2 }, { token })).status).toBe(200);
      expect((await api.graphql(`{ ${contents(100)} }`, {}, { token })).status).toBe(200);
      // A response above MAX_RESPONSE_BYTES is refused with a clear error instead of being sent.
      const introspection =
        '{ __schema { types { name description enumValues { name description } inputFields { name description } fields { name description args { name description type { name } } type { name kind ofType { name kind } } } } } }';
      const big = await api.graphql(introspection, {}, { token });
      expect(big.status).toBe(400);
      expect(big.body.errors?.[0]).toMatchObject({
        extensions: { code: 'BAD_REQUEST', details: { limit: 'responseBytes', max: MAX_RESPONSE_BYTES } },
      });
      // A write's answer goes out whatever its size (its change is committed); reading it back is refused. In a project
      // of its own: the other tests list the default project's content types.
      const project = (
        await api.call('POST', '/app/v1/organizations/default/projects', {
          token,
          body: { name: `large-${Date.now()}` },
        })
      ).body.id;
      const description = 'd'.repeat(MAX_RESPONSE_BYTES + 1000);
      const types = `/app/v1/organizations/default/projects/${project}/content-types`;
      const created = await api.call('POST', types, {
        token,
        body: { name: 'Large', description, schema: { type: 'object' } },
      });
      expect(created.status).toBe(201);
      expect(created.body.description).toBe(description);
      const read = await api.call('GET', `${types}/${created.body.id}`, { token });
      expect(read.status).toBe(400);
      expect(read.body.error.details).toMatchObject({ limit: 'responseBytes' });
      const mutation = await api.graphql(
        `mutation($d: String, $p: ID!) { createContentType(organizationId: "default", projectId: $p, input: { name: "Large GraphQL", description: $d, schema: { type: "object" } }) { id description } }`,
        { d: description, p: project },
        { token },
      );
      expect(mutation.status).toBe(200);
      expect(mutation.body.data.createContentType.description).toBe(description);
    });

    it('lets every REST read route’s generated operation through the limits, and hides field suggestions from key holders', async () => {
      const { body } = await api.call('POST', KEYS, { token, body: { name: 'limits' } });
      const routes = Object.assign({}, ...SUBGRAPHS.map((s) => s.routes)) as Record<
        string,
        { app?: { method: string; path: string }; api?: { method: string; path: string } }
      >;
      for (const [field, byFamily] of Object.entries(routes)) {
        for (const family of ['app', 'api'] as const) {
          const route = byFamily[family];
          if (!route || route.method !== 'GET') continue;
          const path =
            route.path
              .replace(':organizationId', 'default')
              .replace(':projectId', 'default')
              .replace(/:[A-Za-z]+/g, 'unknown-id') + (REQUIRED_QUERY[field] ?? '');
          const res = await api.call(
            'GET',
            `/${family}/v1${path}`,
            family === 'app' ? { token } : { apiKey: body.key },
          );
          expect(res.status, `${field} ${family}`).not.toBe(400);
          // The largest page a route allows passes the list-aware cost too (routes without `limit` may refuse it otherwise).
          const full = await api.call(
            'GET',
            `/${family}/v1${path}${path.includes('?') ? '&' : '?'}limit=100`,
            family === 'app' ? { token } : { apiKey: body.key },
          );
          expect(JSON.stringify(full.body), `${field} ${family} limit=100`).not.toMatch(/cost/);
        }
      }
      const keyTypo = await api.graphql(
        '{ contentTypes(organizationId: "default", projectId: "default") { data { nme } } }',
        {},
        { apiKey: body.key },
      );
      expect(keyTypo.body.errors?.[0].message).not.toMatch(/Did you mean/);
      const adminTypo = await api.graphql(
        '{ contentTypes(organizationId: "default", projectId: "default") { data { nme } } }',
        {},
        { token },
      );
      expect(adminTypo.body.errors?.[0].message).toMatch(/Did you mean/);
    });
  });
});
