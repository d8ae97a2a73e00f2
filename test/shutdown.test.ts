// Black-box: SIGTERM under load drains the gateway — accepted requests complete, no half writes, WS 1001, SSE ends, exit 0.
import { createPostgresDatabase } from '@cp/db/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { Client, PROJECT } from './support/client';
import { startService, type TestService } from './support/service';

const REQUESTS = 200;

describe('graceful shutdown and readiness', () => {
  let service: TestService;
  let api: Client;
  let token: string;

  beforeAll(async () => {
    service = await startService({ env: { SHUTDOWN_TIMEOUT_MS: '10000', EMBEDDINGS: 'off' } });
    api = new Client(service.url);
    token = await api.login();
  });
  afterAll(async () => {
    await service?.destroy();
  });

  it('answers /ready and /health while running', async () => {
    const ready = await api.call('GET', '/ready');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready' });
    expect((await api.call('GET', '/health')).status).toBe(200);
  });

  it('on SIGTERM with 200 writes in flight: every accepted request completes, nothing half written, WS 1001, SSE ends, exit 0', async () => {
    // A live SSE stream and a graphql-ws connection that the shutdown must close cleanly.
    const sse = await fetch(`${service.url}/app/v1${PROJECT}/events`, {
      headers: { accept: 'text/event-stream', authorization: `Bearer ${token}` },
    });
    expect(sse.status).toBe(200);
    const sseEnded = (async () => {
      const reader = sse.body!.getReader();
      for (;;) if ((await reader.read()).done) return 'ended';
    })().catch((err: Error) => `failed: ${err.message}`);
    const socket = new WebSocket(service.url.replace('http', 'ws') + '/graphql', 'graphql-transport-ws');
    const closeCode = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () =>
        socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${token}` } })),
      );
      socket.on('message', (data) => JSON.parse(String(data)).type === 'connection_ack' && resolve());
      socket.once('error', reject);
    });

    let firstAnswered!: () => void;
    const first = new Promise<void>((resolve) => (firstAnswered = resolve));
    let answeredBeforeSignal = 0;
    let signalled = false;
    const requests = Array.from({ length: REQUESTS }, async (_, i) => {
      try {
        const res = await fetch(`${service.url}/app/v1${PROJECT}/tags`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: `drain-${i}` }),
        });
        const body = await res.json();
        if (!signalled) answeredBeforeSignal++;
        firstAnswered();
        return { status: res.status, id: body.id as string | undefined };
      } catch (err) {
        // Not accepted: the connection was refused or closed before the request was read.
        return { status: 0, error: String((err as { cause?: { code?: string } }).cause?.code ?? err) };
      }
    });
    await first;
    const exited = new Promise<number | null>((resolve) => service.child.once('exit', (code) => resolve(code)));
    signalled = true;
    service.child.kill('SIGTERM');
    const results = await Promise.all(requests);
    const code = await exited;

    expect(code).toBe(0);
    const answered = results.filter((r) => r.status !== 0);
    // The signal came while requests were still running, and every request that got an answer got a complete 201.
    expect(answeredBeforeSignal).toBeLessThan(REQUESTS);
    expect(answered.length).toBeGreaterThan(answeredBeforeSignal);
    expect(answered.map((r) => r.status).filter((s) => s !== 201)).toEqual([]);
    expect(await closeCode).toBe(1001);
    expect(await sseEnded).toBe('ended');

    // No half writes: exactly the answered creations exist, each with its event.
    const db = new pg.Client({ connectionString: service.databaseUrl });
    await db.connect();
    try {
      const tags = await db.query<{ id: string }>(`select id from tag where name like 'drain-%'`);
      expect(tags.rows.map((r) => r.id).sort()).toEqual(answered.map((r) => r.id).sort());
      const events = await db.query<{ n: string }>(`select count(*) as n from event where resource_id = any($1)`, [
        tags.rows.map((r) => r.id),
      ]);
      expect(Number(events.rows[0].n)).toBe(tags.rows.length);
    } finally {
      await db.end();
    }
    expect(service.output()).not.toMatch(/received during server shutdown/);
  }, 120_000);

  it('fails /ready (and /health) with 503 once the database is gone', async () => {
    const db = await createPostgresDatabase();
    const other = await startService({ databaseUrl: db.url, env: { EMBEDDINGS: 'off' } });
    try {
      const client = new Client(other.url);
      expect((await client.call('GET', '/ready')).status).toBe(200);
      await db.drop();
      const ready = await client.call('GET', '/ready');
      expect(ready.status).toBe(503);
      expect(ready.body).toEqual({ status: 'degraded' });
      expect((await client.call('GET', '/health')).status).toBe(503);
    } finally {
      await other.stop();
    }
  }, 120_000);
});
