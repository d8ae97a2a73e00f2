// HttpDrain on a real node:http server: in-flight requests finish, new connections are refused, idle sockets close.
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { HttpDrain } from './http-drain';
import { Readiness } from './readiness';

function get(port: number, path: string, agent?: import('node:http').Agent): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ port, host: '127.0.0.1', path, agent }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    req.end();
  });
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
    const keepAlive = new (await import('node:http')).Agent({ keepAlive: true });
    expect((await get(port, '/fast', keepAlive)).body).toBe('fast'); // leaves an idle keep-alive socket

    const slow = get(port, '/slow');
    await untilInFlight(drain, 1);
    expect(drain.inFlight).toBe(1);
    const drained = drain.drain(server, Date.now() + 5000);
    await expect(get(port, '/fast')).rejects.toThrow(/ECONNREFUSED/);
    release();
    expect(await slow).toEqual({ status: 200, body: 'slow done' });
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
  it('is 503 while starting and draining, 200 when ready and the database answers', async () => {
    const readiness = new Readiness();
    let dbUp = true;
    const server = createServer((req, res) => {
      const shim = Object.assign(res, {
        status: (code: number) => ((res.statusCode = code), shim),
        json: (body: unknown) => res.end(JSON.stringify(body)),
      });
      void readiness.handler(async () => dbUp)(req as never, shim as never);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    expect(await get(port, '/ready')).toEqual({ status: 503, body: '{"status":"starting"}' });
    readiness.ready();
    expect(await get(port, '/ready')).toEqual({ status: 200, body: '{"status":"ready"}' });
    dbUp = false;
    expect(await get(port, '/ready')).toEqual({ status: 503, body: '{"status":"degraded"}' });
    readiness.draining();
    expect(await get(port, '/ready')).toEqual({ status: 503, body: '{"status":"draining"}' });
    server.close();
  });
});
