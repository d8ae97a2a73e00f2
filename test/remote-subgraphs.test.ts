// Black-box: the same code deployed as four subgraph services behind a gateway over HTTP, on one real PostgreSQL.
import { createPostgresDatabase } from '@cp/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, PROJECT } from './support/client';
import { freePort, JWT_SECRET, spawnNode, startService, type Process, type TestService } from './support/service';

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
      const env = { DATABASE_URL: db.url, JWT_SECRET, SUBGRAPH_PORT: String(port) };
      const proc = await spawnNode(`subgraphs/${name}/dist/main.js`, env, new RegExp(`subgraph ${name} listening`));
      services.push(proc);
      urls.push(`${name}=${proc.url}`);
    }
    gateway = await startService({ databaseUrl: db.url, env: { SUBGRAPH_URLS: urls.join(',') } });
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
});
