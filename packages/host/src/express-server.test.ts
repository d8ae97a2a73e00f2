// The server's requests and responses reach Express with the prototype it gives them, so it never has to change it.
import express from 'express';
import fc from 'fast-check';
import { connect, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { expressServer } from './express-server';

const servers: ReturnType<typeof expressServer>[] = [];
afterEach(() => Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r)))));

describe('expressServer', () => {
  it('creates requests and responses with the app’s prototypes before Express sees them', async () => {
    const app = express();
    const server = expressServer(app, { headersTimeoutMs: 5000, requestTimeoutMs: 120_000 });
    servers.push(server);
    const seen: boolean[] = [];
    // First listener: what Node made, before Express's own handling runs.
    server.on('request', (req, res) => {
      seen.push(Object.getPrototypeOf(req) === app.request, Object.getPrototypeOf(res) === app.response);
    });
    server.on('request', app);
    app.get('/x/:id', (req, res) => {
      res.status(201).json({ id: req.params.id, query: req.query, path: req.path });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    const answer = await fetch(`http://127.0.0.1:${port}/x/7?a=1`);
    expect(seen).toEqual([true, true]);
    expect(answer.status).toBe(201);
    expect(await answer.json()).toEqual({ id: '7', query: { a: '1' }, path: '/x/7' });
  });

  it('keeps an idle keep-alive socket usable past Node’s default 5 s (and its 1 s grace), so a client reusing it is not reset', async () => {
    const app = express();
    const server = expressServer(app, { headersTimeoutMs: 5000, requestTimeoutMs: 120_000 });
    servers.push(server);
    server.on('request', app);
    app.get('/', (_req, res) => void res.send('ok'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
    const answers: string[] = [];
    socket.on('data', (chunk) => answers.push(String(chunk)));
    let closed = false;
    socket.on('close', () => (closed = true));
    const get = async () => {
      const before = answers.length;
      socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
      for (let waited = 0; answers.length === before && waited < 2000; waited += 20)
        await new Promise((r) => setTimeout(r, 20));
      return answers.at(-1) ?? '';
    };
    expect(await get()).toMatch(/^HTTP\/1.1 200/);
    await new Promise((r) => setTimeout(r, 7_500));
    expect(closed).toBe(false);
    expect(await get()).toMatch(/^HTTP\/1.1 200/);
    socket.destroy();
  }, 15_000);

  it('answers 304 from Express’s send exactly when If-None-Match names the ETag (weakly), whatever Cache-Control says', async () => {
    const app = express();
    const server = expressServer(app, { headersTimeoutMs: 5000, requestTimeoutMs: 120_000 });
    servers.push(server);
    server.on('request', app);
    let etag = '';
    app.get('/', (_req, res) => void res.setHeader('ETag', etag).send('body'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const tag = fc.constantFrom('"a"', '"b"', 'W/"a"', 'W/"b"', '"a', '*');
    const runs = { seed: Number(process.env.FC_SEED ?? 20261129), numRuns: Number(process.env.FC_RUNS ?? 60) };
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('"a"', 'W/"a"'),
        fc.array(tag, { minLength: 1, maxLength: 3 }),
        fc.constantFrom(undefined, 'no-cache', 'max-age=0'),
        async (sent, tags, cacheControl) => {
          etag = sent;
          const headers: Record<string, string> = { 'if-none-match': tags.join(', ') };
          if (cacheControl) headers['cache-control'] = cacheControl;
          const answer = await fetch(url, { headers });
          // `*` stands alone (RFC 9110: `"*" / #entity-tag`); in a list it names no tag.
          const current = tags.join() === '*' || tags.some((t) => t.replace(/^W\//, '') === '"a"');
          expect(answer.status).toBe(current ? 304 : 200);
        },
      ),
      runs,
    );
  });
});
