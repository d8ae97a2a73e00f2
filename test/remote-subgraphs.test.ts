// Black-box: the same code deployed as four subgraph services behind a gateway over HTTP, on one real PostgreSQL.
import { createPostgresDatabase } from '@cp/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, PROJECT } from './support/client';
import { ADMIN, freePort, JWT_SECRET, spawnNode, startService, type Process, type TestService } from './support/service';

describe('remote subgraphs (SUBGRAPH_URLS)', () => {
  const services: Process[] = [];
  let gateway: TestService;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    const db = await createPostgresDatabase();
    drop = db.drop;
    const urls: string[] = [];
    for (const name of ['access', 'content', 'components', 'assets']) {
      const port = await freePort();
      const env = { DATABASE_URL: db.url, JWT_SECRET, SUBGRAPH_PORT: String(port), SIGN_IN_FAILURES_PER_ACCOUNT: '3' };
      const proc = await spawnNode(`subgraphs/${name}/dist/main.js`, env, new RegExp(`subgraph ${name} listening`));
      services.push(proc);
      urls.push(`${name}=${proc.url}`);
    }
    gateway = await startService({ databaseUrl: db.url, env: { SUBGRAPH_URLS: urls.join(','), SIGN_IN_FAILURES_PER_ACCOUNT: '3' } });
  });
  afterAll(async () => {
    await gateway?.destroy();
    await Promise.all(services.map((s) => s.stop()));
    await drop?.();
  });

  it('serves REST and GraphQL across subgraphs over HTTP, with codes passed through', async () => {
    const api = new Client(gateway.url);
    const token = await api.login();
    const created = await api.call('POST', `/app/v1${PROJECT}/content-types`, { token, body: { name: 'Remote', schema: { type: 'object' } } });
    expect(created.status).toBe(201);

    const res = await api.graphql(
      `query($id: ID!) { contentType(organizationId: "default", projectId: "default", id: $id) { name createdBy { email } } }`,
      { id: created.body.id },
      { token },
    );
    expect(res.body).toEqual({ data: { contentType: { name: 'Remote', createdBy: { email: 'admin@example.com' } } } });

    const duplicate = await api.call('POST', `/app/v1${PROJECT}/content-types`, { token, body: { name: 'Remote', schema: { type: 'object' } } });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.error.code).toBe('NAME_TAKEN');
    const missing = await api.call('GET', `/app/v1${PROJECT}/content-types/nope`, { token });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('NOT_FOUND');
  });

  it('refuses a forged principal at a subgraph service', async () => {
    const res = await fetch(services[1].url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-cp-principal': 'forged' },
      body: JSON.stringify({ query: '{ contentTypes(organizationId: "default", projectId: "default") { data { id } } }' }),
    });
    const body = await res.json();
    expect(JSON.stringify(body)).toMatch(/UNAUTHORIZED/);
    expect(JSON.stringify(body)).not.toMatch(/"name"/);
  });

  // Last: it locks the admin account for the rest of the window.
  it('counts failed sign-ins per account across the gateway and the standalone access service (shared store)', async () => {
    const api = new Client(gateway.url);
    const wrong = { email: 'admin@example.com', password: 'not-the-password-at-all' };
    for (let i = 0; i < 2; i++) expect((await api.call('POST', '/app/v1/auth/login', { body: wrong })).status).toBe(401);
    const login = (password: string) =>
      fetch(services[0].url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'mutation($i: LoginInput!) { login(input: $i) { token } }', variables: { i: { email: wrong.email, password } } }),
      }).then((r) => r.json());
    expect(JSON.stringify(await login(wrong.password))).toMatch(/UNAUTHORIZED/);
    // The third failure happened at the access service: the account is now refused there and at the gateway.
    const refused = await login(ADMIN.password);
    expect(JSON.stringify(refused)).toMatch(/RATE_LIMITED/);
    expect(refused.data?.login?.token).toBeUndefined();
    expect((await api.call('POST', '/app/v1/auth/login', { body: { email: wrong.email, password: ADMIN.password } })).status).toBe(429);
  });
});
