// Black-box: the service's own PostgreSQL stops and starts again; requests meanwhile get a fast 503, cached reads answer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, PROJECT } from './support/client';
import { startPostgres, type FaultServer } from './support/fault-servers';
import { startService, type TestService } from './support/service';

const app = `/app/v1${PROJECT}`;
const api = `/api/v1${PROJECT}`;

describe('PostgreSQL outage', () => {
  let pg: FaultServer;
  let service: TestService;
  let client: Client;
  let token: string;
  let key: string;
  let typeId: string;
  let id: string;

  beforeAll(async () => {
    pg = await startPostgres();
    service = await startService({ databaseUrl: pg.url, env: { EMBEDDINGS: 'off' } });
    client = new Client(service.url);
    token = await client.login();
    typeId = (
      await client.call('POST', `${app}/content-types`, { token, body: { name: 'Page', schema: { type: 'object' } } })
    ).body.id;
    await client.call('POST', `${app}/content-types/${typeId}/publish`, { token });
    key = (await client.call('POST', `${app}/api-keys`, { token, body: { name: 'reader' } })).body.key;
    id = (
      await client.call('POST', `${app}/content`, { token, body: { typeId, name: 'Home', content: { title: 'v1' } } })
    ).body.id;
    expect((await client.call('POST', `${app}/content/${id}/publish`, { token })).status).toBe(200);
  });
  afterAll(async () => {
    await service?.stop();
    await pg?.destroy();
  });

  it('answers 503 UNAVAILABLE with Retry-After at once, keeps serving cached published reads, and recovers without a restart', async () => {
    const cached = `${api}/content/${id}/resolved`;
    await client.call('GET', cached, { apiKey: key });
    const before = await client.call('GET', cached, { apiKey: key });
    expect(before.headers.get('x-cache')).toBe('HIT');

    await pg.stop();
    const refusals = [
      () => client.call('POST', `${app}/content`, { token, body: { typeId, name: 'During', content: {} } }),
      () => client.call('GET', `${app}/content?limit=5`, { token }),
      () => client.call('GET', `${api}/content?limit=5`, { apiKey: key }),
      () => client.call('POST', `${app}/content/${id}/publish`, { token }),
      () =>
        client.call('POST', '/graphql', {
          token,
          body: {
            query:
              'mutation($t: ID!) { createContent(organizationId: "default", projectId: "default", input: { typeId: $t, name: "G", content: {} }) { id } }',
            variables: { t: typeId },
          },
        }),
    ];
    for (const request of refusals) {
      const started = Date.now();
      const res = await request();
      // Fast, not hanging until some pool timeout: the database is down, not slow.
      expect(Date.now() - started).toBeLessThan(3000);
      expect(res.status, JSON.stringify(res.body)).toBe(503);
      expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(res.body.error?.code ?? res.body.errors?.[0]?.extensions?.code).toBe('UNAVAILABLE');
    }
    // The published-read cache keeps answering what it holds.
    const during = await client.call('GET', cached, { apiKey: key });
    expect(during.status).toBe(200);
    expect(during.headers.get('x-cache')).toBe('HIT');
    expect(during.body).toEqual(before.body);
    expect((await client.call('GET', '/health')).status).toBe(503);
    expect((await client.call('GET', '/ready')).status).toBe(503);

    await pg.start();
    const deadline = Date.now() + 15_000;
    let res = await client.call('POST', `${app}/content`, { token, body: { typeId, name: 'After', content: {} } });
    while (res.status !== 201 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      res = await client.call('POST', `${app}/content`, { token, body: { typeId, name: 'After', content: {} } });
    }
    expect(res.status).toBe(201);
    expect((await client.call('GET', '/ready')).status).toBe(200);
    // An outage is not a bug: no request was logged as an unexpected error.
    expect(service.output()).not.toMatch(/"msg":"unexpected error"/);
    expect(service.output()).toMatch(/answered 503/);
  });
});
