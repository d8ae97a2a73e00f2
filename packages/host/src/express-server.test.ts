// The server's requests and responses reach Express with the prototype it gives them, so it never has to change it.
import express from 'express';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { expressServer } from './express-server';

const servers: ReturnType<typeof expressServer>[] = [];
afterEach(() => Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r)))));

describe('expressServer', () => {
  it('creates requests and responses with the app’s prototypes before Express sees them', async () => {
    const app = express();
    const server = expressServer(app);
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
});
