// Protective headers on every API answer; `no-store` on admin and signed-in GraphQL answers only.
import express from 'express';
import fc from 'fast-check';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiHeaders } from './api-headers';

const runs = { seed: Number(process.env.FC_SEED ?? 20261125), numRuns: Number(process.env.FC_RUNS ?? 100) };

/** Accept headers and whether they prefer HTML to JSON (a browser opening the URL). */
const ACCEPTS: [string | undefined, boolean][] = [
  [undefined, false],
  ['application/json', false],
  ['*/*', false],
  ['application/json, text/html', false],
  ['text/html', true],
  ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', true],
];

describe('apiHeaders', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    const app = express();
    // At the root, as the gateway's front stages run: the stage itself tells the APIs' paths from the others.
    app.use(apiHeaders());
    app.use((_req, res) => void res.json({}));
    server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server?.close(resolve)));

  it('never lets an answer be sniffed or framed, and keeps admin and bearer GraphQL answers out of caches', async () => {
    const request = fc.record({
      base: fc.constantFrom('/app/v1', '/api/v1', '/graphql', '/APP/V1', '/Api/v1', '/GraphQL'),
      rest: fc.constantFrom('', '/organizations/o/projects/p/content', '/x?y=1'),
      method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE'),
      accept: fc.constantFrom(...ACCEPTS),
      bearer: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(request, async ({ base, rest, method, accept: [accept, prefersHtml], bearer }) => {
        const headers: Record<string, string> = {};
        if (accept !== undefined) headers.accept = accept;
        if (bearer) headers.authorization = 'Bearer t';
        const res = await fetch(`${url}${base}${rest}`, { method, headers });
        await res.arrayBuffer();
        expect(res.headers.get('x-content-type-options')).toBe('nosniff');
        expect(res.headers.get('x-frame-options')).toBe('DENY');
        // An HTML page (docs, GraphiQL) sets its own CSP; every other answer forbids framing here.
        const htmlPage = method === 'GET' && prefersHtml;
        expect(res.headers.get('content-security-policy')).toBe(htmlPage ? null : "frame-ancestors 'none'");
        const mount = base.toLowerCase();
        const admin = mount === '/app/v1' || (mount === '/graphql' && bearer);
        expect(res.headers.get('cache-control')).toBe(admin ? 'no-store' : null);
      }),
      runs,
    );
  });

  it('leaves every other path alone: the CDN, the docs, health and look-alike prefixes', async () => {
    for (const path of [
      '/health',
      '/cdn/o/p/assets/a/b',
      '/docs',
      '/graphqlx',
      '/api/v10/x',
      '/app/v1x',
      '/x/api/v1',
    ]) {
      const res = await fetch(`${url}${path}`);
      await res.arrayBuffer();
      expect([path, res.headers.get('x-content-type-options'), res.headers.get('cache-control')]).toEqual([
        path,
        null,
        null,
      ]);
    }
  });
});
