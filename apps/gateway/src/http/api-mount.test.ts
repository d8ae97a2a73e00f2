// apiMount against Express's own mounts: whatever the request target, it names the mount the router would enter.
import express, { type NextFunction, type Request, type Response } from 'express';
import fc from 'fast-check';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiMount } from './api-mount';
import { headAsGet } from './head-as-get';

const runs = { seed: Number(process.env.FC_SEED ?? 20261129), numRuns: Number(process.env.FC_RUNS ?? 300) };
const MOUNTS = ['/app/v1', '/api/v1', '/graphql'] as const;

/** Targets near the mounts: their words in any case, look-alikes, encodings, queries, fragments, absolute form. */
const segment = fc.oneof(
  fc.constantFrom('app', 'api', 'v1', 'graphql', 'organizations', 'x'),
  fc.constantFrom('APP', 'Api', 'V1', 'GraphQL', 'v10', 'app.v1', 'graphqlx', '%61pi', '%2F', '', ';x', '.', '..'),
);
const target = fc
  .tuple(
    fc.array(segment, { minLength: 1, maxLength: 5 }),
    fc.constantFrom('', '/', '?a=1', '?', '#f', '/#f', '?a=/api/v1'),
    fc.constantFrom('', 'http://example.test', 'HTTPS://example.test:8443'),
  )
  .map(([parts, tail, origin]) => `${origin}/${parts.join('/')}${tail}`);

/** One request with a raw target (fetch would normalise it); the answer's headers. */
function send(base: string, method: string, path: string): Promise<Record<string, unknown>> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, method, path }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.headers));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('apiMount', () => {
  let server: Server;
  let base = '';
  beforeAll(async () => {
    const app = express();
    app.use(headAsGet);
    app.use((req: Request, res: Response, next: NextFunction) => {
      res.locals.named = apiMount(req) ?? 'none';
      res.setHeader('x-method', req.method);
      next();
    });
    for (const mount of MOUNTS)
      app.use(mount, (_req: Request, res: Response) => void res.set('x-said', `${res.locals.named} ${mount}`).end());
    app.use((_req: Request, res: Response) => void res.set('x-said', `${res.locals.named} none`).end());
    server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server?.close(resolve)));

  it('names the mount Express enters, and none where it enters none', async () => {
    await fc.assert(
      fc.asyncProperty(target, async (path) => {
        const [named, entered] = String((await send(base, 'GET', path))['x-said']).split(' ');
        expect({ path, named }).toEqual({ path, named: entered });
      }),
      runs,
    );
  });

  it('turns HEAD into GET on the REST mounts only, in every form of target', async () => {
    const rest = ['/app/v1/x', '/API/V1/x', 'http://example.test/api/v1/x', '/app/v1#f', '/api/v1?x=1'];
    const others = ['/graphql', '/health', '/cdn/o/p/assets/a/b', '/api/v10/x', 'http://example.test/graphql'];
    for (const path of [...rest, ...others]) {
      const answer = (await send(base, 'HEAD', path))['x-method'];
      expect({ path, method: answer }).toEqual({ path, method: rest.includes(path) ? 'GET' : 'HEAD' });
    }
  });
});
