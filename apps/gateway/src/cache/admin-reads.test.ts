// What an admin entry read's entry holds: the LRU's byte budget (a quarter of CACHE_MAX_BYTES) counts `body.length`,
// so a stored body must own exactly those bytes. Express hands small bodies over as views into Node's shared 8 KiB
// buffer pool (`Buffer.from(string)` below 4 KiB); kept as they are, each entry pins a whole slab and the cache holds
// several times its budget.
import type { Context, ProjectDirectory, RestRoute, UserPrincipal } from '@cp/graphql';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Request, Response } from 'express';
import { describe, expect, it } from 'vitest';
import { respond } from '@cp/edge';
import { adminReads } from './admin-reads';

const list: RestRoute = { method: 'GET', path: '/organizations/:organizationId/projects/:projectId/content' };
const routes = { entry: { method: 'GET', path: `${list.path}/:id` } satisfies RestRoute, list };
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
const projects = { exists: async () => true } as unknown as ProjectDirectory;

const request = () =>
  ({ method: 'GET', originalUrl: url, headers: { authorization: 'Bearer t' } }) as unknown as Request;

/** The Express response execution answers: headers in a map, `end` recording its chunk. */
function expressResponse(sent: Buffer[] = []) {
  const headers = new Map<string, unknown>();
  const res = {
    statusCode: 200,
    headersSent: false,
    locals: { context: { principal, projects } as Context },
    getHeader: (name: string) => headers.get(name.toLowerCase()),
    setHeader: (name: string, value: unknown) => headers.set(name.toLowerCase(), value),
    removeHeader: (name: string) => headers.delete(name.toLowerCase()),
    write: () => true,
    once: () => res,
    end: (body?: Buffer) => {
      if (body) sent.push(body);
      return res;
    },
  };
  return res as unknown as Response;
}

/** Runs the stage; resolves true when it passed the request on to execution. */
const serve = (admin: ReturnType<typeof adminReads>, res: Response) =>
  new Promise<boolean>((resolve) => {
    admin.serve(request(), res, () => resolve(true));
    void Promise.resolve().then(() => setTimeout(() => resolve(false), 50));
  });

describe('admin entry reads', () => {
  it('start with any budget: a quarter of the smallest CACHE_MAX_BYTES rounds to 0, which lru-cache alone refuses', () => {
    expect(() => adminReads({ routes, em, maxBytes: 0 })).not.toThrow();
  });

  it('store a body that owns its bytes, not a view into the shared buffer pool', async () => {
    const admin = adminReads({ routes, em, maxBytes: 1 << 20 });
    // The miss: passed on to execution, whose 200 is captured as Express sends it.
    const res = expressResponse();
    expect(await serve(admin, res)).toBe(true);
    res.setHeader('ETag', '"1"');
    const body = Buffer.from(JSON.stringify({ id: 'e1', content: 'x'.repeat(1300) }));
    expect(body.buffer.byteLength).toBeGreaterThan(body.length); // a slice of the pool, as Express's bodies are
    respond(res, body, 'end');
    expect(admin.stats().entries).toBe(1);

    // The hit replays what was stored.
    const sent: Buffer[] = [];
    expect(await serve(admin, expressResponse(sent))).toBe(false);
    const [stored] = sent;
    expect(stored.equals(body)).toBe(true);
    expect(stored.buffer.byteLength).toBe(stored.length);
  });
});
