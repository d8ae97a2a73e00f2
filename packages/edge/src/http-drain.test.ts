// HttpDrain on a real node:http server: the grace window still serves, in-flight requests finish, new connections are refused.
import { Agent, createServer, request, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { HttpDrain } from './http-drain';
import { Readiness } from './readiness';

function get(
  port: number,
  path: string,
  agent?: Agent,
): Promise<{ status: number; body: string; connection?: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ port, host: '127.0.0.1', path, agent }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, body, connection: res.headers.connection }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function listen(drain: HttpDrain, app: RequestListener) {
  const server = createServer(drain.listener(app));
  drain.attach(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as AddressInfo).port };
}

/** Polls until the server has the request in hand (a fixed sleep races with a busy machine). */
async function untilInFlight(drain: HttpDrain, count: number): Promise<void> {
  while (drain.inFlight < count) await new Promise((r) => setTimeout(r, 10));
}

describe('HttpDrain', () => {
  it('lets an in-flight request finish, refuses new connections, and resolves clean', async () => {
    const drain = new HttpDrain();
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const server = createServer(
      drain.listener((req, res) => {
        if (req.url === '/slow') void held.then(() => res.end('slow done'));
        else res.end('fast');
      }),
    );
    drain.attach(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    const keepAlive = new Agent({ keepAlive: true });
    expect((await get(port, '/fast', keepAlive)).body).toBe('fast'); // leaves an idle keep-alive socket

    const slow = get(port, '/slow');
    await untilInFlight(drain, 1);
    expect(drain.inFlight).toBe(1);
    const drained = drain.drain(server, Date.now() + 5000);
    while (server.listening) await new Promise((r) => setTimeout(r, 10));
    await expect(get(port, '/fast')).rejects.toThrow(/ECONNREFUSED/);
    release();
    expect(await slow).toMatchObject({ status: 200, body: 'slow done' });
    expect(await drained).toBe(true);
    keepAlive.destroy();
  });

  it('serves during the grace window with Connection: close, and /ready says draining', async () => {
    const readiness = new Readiness();
    readiness.ready();
    const drain = new HttpDrain(readiness);
    const { server, port } = await listen(drain, (_req, res) => res.end('ok'));
    const keepAlive = new Agent({ keepAlive: true });
    expect(await get(port, '/', keepAlive)).toEqual({ status: 200, body: 'ok', connection: 'keep-alive' });
    drain.retire();
    expect(readiness.state).toBe('draining');
    // The idle keep-alive socket and a new connection both get an answer, each asking the client to close.
    expect(await get(port, '/', keepAlive)).toEqual({ status: 200, body: 'ok', connection: 'close' });
    expect(await get(port, '/')).toEqual({ status: 200, body: 'ok', connection: 'close' });
    expect(await drain.drain(server, Date.now() + 5000)).toBe(true);
    keepAlive.destroy();
  });

  it('answers a request that arrives on an idle keep-alive socket during the drain instead of resetting it', async () => {
    const drain = new HttpDrain();
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const { server, port } = await listen(drain, (req, res) => {
      if (req.url === '/slow') void held.then(() => res.end('slow done'));
      else res.end('fast');
    });
    const keepAlive = new Agent({ keepAlive: true, maxSockets: 1 });
    expect((await get(port, '/fast', keepAlive)).body).toBe('fast');
    const slow = get(port, '/slow');
    await untilInFlight(drain, 1);
    const drained = drain.drain(server, Date.now() + 5000);
    expect(await get(port, '/fast', keepAlive)).toEqual({ status: 200, body: 'fast', connection: 'close' });
    release();
    expect(await slow).toEqual({ status: 200, body: 'slow done', connection: 'close' });
    expect(await drained).toBe(true);
    keepAlive.destroy();
  });

  it('cuts what is still running at the deadline and reports it', async () => {
    const drain = new HttpDrain();
    const server = createServer(drain.listener(() => undefined)); // never answers
    drain.attach(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    const hanging = get(port, '/').catch((err: Error) => err.message);
    await untilInFlight(drain, 1);
    expect(await drain.drain(server, Date.now() + 100)).toBe(false);
    expect(await hanging).toMatch(/socket hang up|ECONNRESET/);
  });
});

describe('Readiness', () => {
  it('is 503 while starting and draining or without the database, 200 degraded naming a broker or Redis that is down', async () => {
    const readiness = new Readiness();
    let dbUp = true;
    const up = { broker: true, redis: true };
    const server = createServer((req, res) => {
      const shim = Object.assign(res, {
        status: (code: number) => ((res.statusCode = code), shim),
        json: (body: unknown) => res.end(JSON.stringify(body)),
      });
      void readiness.handler(async () => dbUp, { broker: () => up.broker, redis: () => up.redis })(
        req as never,
        shim as never,
      );
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    expect(await get(port, '/ready')).toMatchObject({ status: 503, body: '{"status":"starting"}' });
    readiness.ready();
    expect(await get(port, '/ready')).toMatchObject({ status: 200, body: '{"status":"ready"}' });
    // A broker or the rate limits' Redis down: still serving, so 200, naming what is down.
    up.redis = false;
    expect(await get(port, '/ready')).toMatchObject({ status: 200, body: '{"status":"degraded","redis":"down"}' });
    up.broker = false;
    expect(await get(port, '/ready')).toMatchObject({
      status: 200,
      body: '{"status":"degraded","broker":"down","redis":"down"}',
    });
    dbUp = false;
    expect(await get(port, '/ready')).toMatchObject({ status: 503, body: '{"status":"degraded"}' });
    readiness.draining();
    expect(await get(port, '/ready')).toMatchObject({ status: 503, body: '{"status":"draining"}' });
    server.close();
  });
});
