// Black-box: the service's own PostgreSQL stops and starts again, or stalls; requests meanwhile get a fast 503, cached
// reads answer, and the service heals without a restart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { Client, PROJECT } from './support/client';
import { startPostgres, type FaultServer } from './support/fault-servers';
import { startService, type TestService } from './support/service';
import { waitFor } from './support/wait';

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
    // Default timeouts: a frozen database is noticed by the liveness probe, not by the statement timeout.
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

  /** Polls until `request` answers `status` (the database is back). */
  async function untilStatus(status: number, request: () => Promise<{ status: number }>): Promise<void> {
    await waitFor(`a ${status} answer`, async () => (await request()).status === status, { intervalMs: 200 });
    expect((await request()).status).toBe(status);
  }

  it('answers 503 within about 3 s while the database is frozen (default timeouts), /ready says so, and heals after a thaw', async () => {
    // Pooled connections exist (a request now takes one of them, as under real traffic).
    await Promise.all(Array.from({ length: 6 }, () => client.call('GET', `${app}/content?limit=5`, { token })));
    const requests = [
      () => client.call('GET', `${app}/content?limit=5`, { token }),
      () => client.call('POST', `${app}/content`, { token, body: { typeId, name: 'Stalled', content: {} } }),
      () => client.call('GET', `${api}/content?limit=3`, { apiKey: key }),
      () => client.call('POST', `${app}/content/${id}/publish`, { token }),
    ];
    pg.freeze();
    let thawed: number;
    try {
      // More requests at once than the pool has connections: some wait for one.
      const started = Date.now();
      const first = await Promise.all(
        Array.from({ length: 12 }, async (_, i) => {
          const res = await requests[i % requests.length]!();
          return { res, ms: Date.now() - started };
        }),
      );
      const slowest = Math.max(...first.map((r) => r.ms));
      console.log(`frozen PostgreSQL: first requests answered within ${slowest} ms`);
      // A 500 is a bug: its log lines, to say which.
      if (first.some(({ res }) => res.status === 500))
        console.log(
          first
            .filter(({ res }) => res.status === 500)
            .map(({ res }) =>
              service
                .output()
                .split('\n')
                .filter((l) => l.includes(res.body.error.details.requestId))
                .join('\n'),
            )
            .join('\n---\n'),
        );
      for (const { res } of first) {
        expect(res.status, JSON.stringify(res.body)).toBe(503);
        expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
        expect(res.body.error.code).toBe('UNAVAILABLE');
      }
      // The liveness probe's interval plus its timeout (1 s + 2 s), not the 15 s statement timeout.
      expect(slowest).toBeLessThan(4000);
      // Once noticed, every request that needs the database is refused at once, and /ready and /health say so.
      for (const request of requests) {
        const at = Date.now();
        const res = await request();
        expect(res.status).toBe(503);
        expect(res.body.error.code).toBe('UNAVAILABLE');
        expect(Date.now() - at).toBeLessThan(500);
      }
      const at = Date.now();
      const ready = await client.call('GET', '/ready');
      expect(ready.status).toBe(503);
      expect(ready.body).toEqual({ status: 'degraded' });
      expect((await client.call('GET', '/health')).status).toBe(503);
      expect(Date.now() - at).toBeLessThan(500);
    } finally {
      pg.thaw();
      thawed = Date.now();
    }
    // Healed without a restart: the stuck connections were dropped and new ones made.
    await untilStatus(201, () =>
      client.call('POST', `${app}/content`, { token, body: { typeId, name: 'Thawed', content: {} } }),
    );
    console.log(`thawed PostgreSQL: writes succeed again after ${Date.now() - thawed} ms`);
    expect(Date.now() - thawed).toBeLessThan(5000);
    expect((await client.call('GET', '/ready')).body).toEqual({ status: 'ready' });
    const reads = await Promise.all(
      Array.from({ length: 12 }, () => client.call('GET', `${app}/content?limit=5`, { token })),
    );
    expect(reads.map((r) => r.status)).toEqual(Array(12).fill(200));
    expect(service.output()).not.toMatch(/"msg":"unexpected error"/);
    expect(service.output()).toMatch(/PostgreSQL does not answer its liveness probe/);
  });

  /** A graphql-ws connection: its close code, and the messages it received, after `afterAck` ran on `connection_ack`. */
  function socket(params: Record<string, string>, afterAck?: (ws: WebSocket) => void) {
    const ws = new WebSocket(`${service.url.replace('http', 'ws')}/graphql`, 'graphql-transport-ws');
    const messages: { type: string; payload?: any }[] = [];
    ws.on('open', () => ws.send(JSON.stringify({ type: 'connection_init', payload: params })));
    ws.on('message', (data) => {
      const message = JSON.parse(String(data));
      messages.push(message);
      if (message.type === 'connection_ack') afterAck?.(ws);
      if (message.type === 'next' || message.type === 'error') ws.close(1000);
    });
    return new Promise<{ code: number; messages: typeof messages }>((resolve) =>
      ws.on('close', (code) => resolve({ code, messages })),
    );
  }

  it('tells graphql-ws clients the database is down (1013, UNAVAILABLE), not that their credentials were refused', async () => {
    const fresh = (await client.call('POST', `${app}/api-keys`, { token, body: { name: 'never used' } })).body.key;
    const project = await client.call('POST', '/app/v1/organizations/default/projects', {
      token,
      body: { name: `outage-${Date.now()}` },
    });
    expect((await client.call('GET', '/app/v1/auth/me', { token })).status).toBe(200); // the token's principal is cached
    await pg.stop();
    try {
      // A key not yet cached can't be checked: try again later, not 4403 Forbidden.
      expect((await socket({ 'x-api-key': fresh })).code).toBe(1013);
      // A subscription to a project not yet cached: its error carries the code, not the driver's message.
      const subscribe = (ws: WebSocket) =>
        ws.send(
          JSON.stringify({
            id: '1',
            type: 'subscribe',
            payload: { query: `subscription { events(projectId: "${project.body.id}") { id } }` },
          }),
        );
      const { messages } = await socket({ authorization: `Bearer ${token}` }, subscribe);
      const failed = messages.find((m) => m.type === 'next' || m.type === 'error');
      const errors = failed?.type === 'next' ? failed.payload.errors : failed?.payload;
      expect(errors?.[0]?.extensions?.code, JSON.stringify(messages)).toBe('UNAVAILABLE');
      expect(JSON.stringify(messages)).not.toMatch(/ECONN|127\.0\.0\.1/);
    } finally {
      await pg.start();
    }
    await untilStatus(200, () => client.call('GET', `${app}/content?limit=1`, { token }));
  });
});
