// Black-box: SIGTERM while a webhook attempt hangs on a slow receiver exits 0 within the shutdown timeout, and the
// delivery is not lost: the restarted process delivers it.
import { createServer, type ServerResponse, type Server } from 'node:http';
import { Client as Pg } from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { Client, PROJECT } from './support/client';
import { expectCleanExit, startService, terminate, type TestService } from './support/service';

const app = `/app/v1${PROJECT}`;
/** Shorter than an attempt's own 10 s limit: a receiver that hangs must not hold the shutdown past it. */
const SHUTDOWN_TIMEOUT_MS = 5000;
/** SIGTERM's grace window before the close (the default is 5 s; shorter here, the test waits it out). */
const GRACE_MS = 2000;

describe('webhooks at SIGTERM', () => {
  const running: TestService[] = [];
  let receiver: Server | undefined;
  const held: ServerResponse[] = [];
  afterEach(async () => {
    for (const res of held.splice(0)) res.destroy();
    receiver?.close();
    for (const s of running.splice(0).reverse()) await s.destroy();
  });

  it('exits 0 in time with an attempt hanging, and the restart delivers it', async () => {
    let hang = true;
    const delivered: string[] = [];
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        if (hang) return void held.push(res);
        delivered.push(JSON.parse(body).event.type);
        res.statusCode = 204;
        res.end();
      });
    });
    await new Promise<void>((r) => receiver!.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
    const env = {
      WEBHOOK_ALLOW_PRIVATE_TARGETS: '1',
      SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
      EMBEDDINGS: 'off',
    };
    const first = await startService({ env });
    running.push(first);
    const api = new Client(first.url);
    const token = await api.login();
    expect((await api.call('POST', `${app}/webhooks`, { token, body: { url } })).status).toBe(201);
    expect((await api.call('POST', `${app}/tags`, { token, body: { name: 'hung' } })).status).toBe(201);
    const deadline = Date.now() + 20_000;
    while (held.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(held).toHaveLength(1);

    expectCleanExit(await terminate(first), first, SHUTDOWN_TIMEOUT_MS);

    hang = false;
    running.push(await startService({ databaseUrl: first.databaseUrl, env }));
    const pg = new Pg({ connectionString: first.databaseUrl });
    await pg.connect();
    try {
      const status = async () => (await pg.query(`select "status" from "webhook_delivery"`)).rows;
      const until = Date.now() + 20_000;
      while (delivered.length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      expect(delivered).toEqual(['tags.created']);
      while ((await status())[0]?.status !== 'delivered' && Date.now() < until)
        await new Promise((r) => setTimeout(r, 50));
      expect(await status()).toEqual([{ status: 'delivered' }]);
    } finally {
      await pg.end();
    }
  }, 60_000);

  it('exits 0 in time when an interrupted attempt cannot record its outcome, and the restart delivers it', async () => {
    let hang = true;
    const delivered: string[] = [];
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        if (hang) return void held.push(res);
        delivered.push(JSON.parse(body).event.type);
        res.statusCode = 204;
        res.end();
      });
    });
    await new Promise<void>((r) => receiver!.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
    // A grace window as in production. The attempt must still be in flight when the stop interrupts it (after the grace
    // window and a second), and the row it leaves `sending` is due again once its lease (three attempt timeouts) runs
    // out: 5 s per attempt gives both.
    const env = {
      WEBHOOK_ALLOW_PRIVATE_TARGETS: '1',
      WEBHOOK_TIMEOUT_MS: '5000',
      SHUTDOWN_GRACE_MS: String(GRACE_MS),
      SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
      EMBEDDINGS: 'off',
    };
    const first = await startService({ env });
    running.push(first);
    const api = new Client(first.url);
    const token = await api.login();
    expect((await api.call('POST', `${app}/webhooks`, { token, body: { url } })).status).toBe(201);
    expect((await api.call('POST', `${app}/tags`, { token, body: { name: 'locked' } })).status).toBe(201);
    const deadline = Date.now() + 20_000;
    while (held.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(held).toHaveLength(1);

    // Another session holds the delivery's row (a long transaction, a slow replica): the interrupted attempt's write
    // waits for it, up to the database's statement timeout (15 s), which is longer than the whole shutdown may take.
    const locker = new Pg({ connectionString: first.databaseUrl });
    await locker.connect();
    try {
      await locker.query('begin');
      await locker.query(`select 1 from "webhook_delivery" for update`);
      expectCleanExit(await terminate(first), first, GRACE_MS + SHUTDOWN_TIMEOUT_MS);
    } finally {
      await locker.query('rollback').catch(() => undefined);
      await locker.end();
    }

    hang = false;
    running.push(await startService({ databaseUrl: first.databaseUrl, env }));
    const pg = new Pg({ connectionString: first.databaseUrl });
    await pg.connect();
    try {
      const status = async () => (await pg.query(`select "status" from "webhook_delivery"`)).rows;
      const until = Date.now() + 40_000;
      while (delivered.length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      expect(delivered).toEqual(['tags.created']);
      while ((await status())[0]?.status !== 'delivered' && Date.now() < until)
        await new Promise((r) => setTimeout(r, 50));
      expect(await status()).toEqual([{ status: 'delivered' }]);
    } finally {
      await pg.end();
    }
  }, 90_000);
});
