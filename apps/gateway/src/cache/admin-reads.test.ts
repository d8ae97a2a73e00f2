// What an admin entry read's entry holds: the LRU's byte budget (a quarter of CACHE_MAX_BYTES) counts `body.length`,
// so a stored body must own exactly those bytes. Express hands small bodies over as views into Node's shared 8 KiB
// buffer pool (`Buffer.from(string)` below 4 KiB); kept as they are, each entry pins a whole slab and the cache holds
// several times its budget.
import type { Context, ProjectDirectory, RestRoute, UserPrincipal } from '@cp/graphql';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Request, Response } from 'express';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { adminReads } from './admin-reads';
import type { EarlyAnswers } from './early-answer';

const route: RestRoute = {
  method: 'GET',
  path: '/organizations/:organizationId/projects/:projectId/content/:id',
};
const url = '/app/v1/organizations/o/projects/p/content/e1';
const principal: UserPrincipal = {
  kind: 'user',
  userId: 'u',
  organizationId: 'o',
  permissions: { content: { read: true } } as UserPrincipal['permissions'],
};

/** One prepared stamp query's answer, always the same: the row never changes here. */
const em = {
  getKnex: () => ({
    raw: () => ({
      options: async () => ({ rows: [{ id: 'e1', organization_id: 'o', project_id: 'p', stamp: '100/1' }] }),
    }),
  }),
} as unknown as EntityManager;

const request = () => ({ method: 'GET', url, headers: { authorization: 'Bearer t' } }) as unknown as IncomingMessage;

/** The Express response the full chain ends: headers in a map, `end` recording its chunk. */
function expressResponse() {
  const headers = new Map<string, unknown>();
  const res = {
    statusCode: 200,
    headersSent: false,
    locals: { context: { principal } as Context },
    getHeader: (name: string) => headers.get(name.toLowerCase()),
    setHeader: (name: string, value: unknown) => headers.set(name.toLowerCase(), value),
    removeHeader: (name: string) => headers.delete(name.toLowerCase()),
    write: () => true,
    end: () => res,
  };
  return res as unknown as Response;
}

describe('admin entry reads', () => {
  it('start with any budget: a quarter of the smallest CACHE_MAX_BYTES rounds to 0, which lru-cache alone refuses', () => {
    const projects = { exists: async () => true } as unknown as ProjectDirectory;
    const early = {} as EarlyAnswers;
    expect(() =>
      adminReads({ route, auth: { cached: () => principal }, em, projects, early, maxBytes: 0 }),
    ).not.toThrow();
  });

  it('store a body that owns its bytes, not a view into the shared buffer pool', async () => {
    const sent: Buffer[] = [];
    const early = {
      answer: (_req: unknown, _res: unknown, _p: unknown, _shape: unknown, send: (res: ServerResponse) => void) =>
        send({ setHeader: () => undefined, end: (body: Buffer) => sent.push(body) } as unknown as ServerResponse),
    } as unknown as EarlyAnswers;
    const admin = adminReads({
      route,
      auth: { cached: () => principal },
      em,
      projects: { exists: async () => true } as unknown as ProjectDirectory,
      early,
      maxBytes: 1 << 20,
    });
    // The miss: marked for the fill, which sees the full chain's 200 as Express sends it.
    const miss = request();
    const passed = new Promise<void>((resolve) => admin.listener(() => resolve())(miss, {} as ServerResponse));
    await passed;
    const res = expressResponse();
    admin.fill(miss as Request, res, () => undefined);
    res.setHeader('ETag', '"1"');
    const body = Buffer.from(JSON.stringify({ id: 'e1', content: 'x'.repeat(1300) }));
    expect(body.buffer.byteLength).toBeGreaterThan(body.length); // a slice of the pool, as Express's bodies are
    res.end(body);
    expect(admin.stats().entries).toBe(1);

    // The hit replays what was stored.
    let tookFullChain = false;
    const front = { setHeader: () => undefined } as unknown as ServerResponse;
    admin.listener(() => (tookFullChain = true))(request(), front);
    await expect.poll(() => sent.length).toBe(1);
    expect(tookFullChain).toBe(false);
    const [stored] = sent;
    expect(stored.equals(body)).toBe(true);
    expect(stored.buffer.byteLength).toBe(stored.length);
  });
});
