// D17: what a request's fingerprint covers, what a stored answer leaves out, the key's decisions on a real database.
import type { Logger } from '@cp/config';
import { openTestDatabase, type TestDatabase } from '@cp/db/testing';
import type { Context } from '@cp/graphql';
import express, { type Request, type Response } from 'express';
import fc from 'fast-check';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fingerprintOf, idempotency, withoutSecrets, type IdempotencyOptions } from './idempotency';
import { sendError } from './send-error';

const runs = { seed: Number(process.env.FC_SEED ?? 20261125), numRuns: Number(process.env.FC_RUNS ?? 200) };

interface Parts {
  method: string;
  url: string;
  ifMatch?: string;
  body: string;
}

/** A request as the middleware reads it: method, the URL with its query, headers, the body as a stream. */
function fingerprint({ method, url, ifMatch, body }: Parts, mode: 'raw' | 'parsed' = 'raw') {
  const req = Object.assign(Readable.from([Buffer.from(body)]), {
    method,
    originalUrl: url,
    header: (name: string) => (name === 'if-match' ? ifMatch : undefined),
    body: mode === 'parsed' ? JSON.parse(body) : undefined,
  });
  return fingerprintOf(req as never, { body: mode, maxBodyBytes: 1 << 20 } as IdempotencyOptions);
}

const json = fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v));
const parts: fc.Arbitrary<Parts> = fc.record({
  method: fc.constantFrom('POST', 'PUT'),
  url: fc
    .tuple(fc.webPath(), fc.option(fc.webQueryParameters(), { nil: undefined }))
    .map(([p, q]) => (q === undefined ? `/app/v1${p}` : `/app/v1${p}?${q}`)),
  ifMatch: fc.option(fc.constantFrom('"1"', '"2"', 'W/"1"', '*'), { nil: undefined }),
  body: json,
});

describe('fingerprintOf', () => {
  it('is equal for equal requests and differs when the method, path, query, If-Match or body differs', async () => {
    const change = fc.constantFrom<keyof Parts>('method', 'url', 'ifMatch', 'body');
    await fc.assert(
      fc.asyncProperty(parts, parts, change, async (a, b, member) => {
        expect(await fingerprint(a)).toBe(await fingerprint({ ...a }));
        const changed = { ...a, [member]: b[member] };
        fc.pre(changed[member] !== a[member]);
        expect(await fingerprint(changed)).not.toBe(await fingerprint(a));
      }),
      runs,
    );
  });

  it('covers the query string, not only the path', async () => {
    const a = { method: 'POST', url: '/app/v1/things?dryRun=true', body: '{}' };
    expect(await fingerprint(a)).not.toBe(await fingerprint({ ...a, url: '/app/v1/things?dryRun=false' }));
    expect(await fingerprint(a, 'parsed')).not.toBe(await fingerprint({ ...a, body: '{"a":1}' }, 'parsed'));
  });
});

describe('withoutSecrets', () => {
  const member = fc.string({ maxLength: 6 }).filter((k) => k !== 'key' && k !== 'token' && k !== '__proto__');
  const secret = fc.option(fc.string(), { nil: undefined });
  /** An answer without secrets, and the secrets it is sent with. */
  const answer = fc.tuple(fc.dictionary(member, fc.jsonValue({ maxDepth: 2 })), secret, secret);
  type Answer = [Record<string, unknown>, string | undefined, string | undefined];
  const withSecrets = ([rest, key, token]: Answer) => ({
    ...rest,
    ...(key === undefined ? {} : { key }),
    ...(token === undefined ? {} : { token }),
  });

  it('drops a REST answer’s `key` and `token` strings, and nothing else', () => {
    fc.assert(
      fc.property(answer, (parts) => {
        expect(JSON.parse(withoutSecrets(JSON.stringify(withSecrets(parts)), false))).toEqual(parts[0]);
      }),
      runs,
    );
  });

  it('drops them from every field of a GraphQL answer’s data', () => {
    fc.assert(
      fc.property(fc.dictionary(member, answer, { maxKeys: 3 }), (fields) => {
        const data = Object.fromEntries(Object.entries(fields).map(([f, p]) => [f, withSecrets(p)]));
        const body = JSON.stringify({ data });
        const stored = JSON.parse(withoutSecrets(body, true)) as { data: Record<string, unknown> };
        expect(stored.data).toEqual(Object.fromEntries(Object.entries(fields).map(([f, p]) => [f, p[0]])));
      }),
      runs,
    );
  });

  it('keeps a non-string `key` (an id, a number) and answers that are not JSON', () => {
    expect(JSON.parse(withoutSecrets('{"key":3,"token":null}', false))).toEqual({ key: 3, token: null });
    expect(withoutSecrets('not json', false)).toBe('not json');
  });
});

describe('Idempotency-Key on a real database', () => {
  let db: TestDatabase;
  let server: Server;
  let url: string;
  /** How often the route ran, per caller. */
  const ran = new Map<string, number>();
  let release: (() => void) | undefined;

  beforeAll(async () => {
    db = await openTestDatabase('postgres', []);
    const app = express();
    app.use((req, res, next) => {
      const permissions = req.header('x-can-create') === 'no' ? {} : { things: { create: true } };
      const principal = { kind: 'user', userId: req.header('x-user'), organizationId: 'o', permissions };
      res.locals.context = { principal } as Partial<Context>;
      next();
    });
    const logger = pino({ level: 'silent' }) as unknown as Logger;
    app.use(idempotency({ orm: db.orm, logger, body: 'raw', maxBodyBytes: 1 << 20, onError: sendError }));
    app.use(async (req: Request & { rawBody?: Buffer }, res: Response) => {
      const user = req.header('x-user')!;
      const count = (ran.get(user) ?? 0) + 1;
      ran.set(user, count);
      (res.locals.context as Context).granted?.add('things.create');
      const body = req.rawBody?.toString() ?? '';
      if (body.includes('hold')) await new Promise<void>((resolve) => (release = resolve));
      if (body.includes('fail')) return void res.status(503).json({ error: { code: 'UNAVAILABLE' } });
      res.status(201).setHeader('Location', `/things/${count}`);
      res.json({ id: count, body, key: `secret-${count}`, token: 't' });
    });
    server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await db?.destroy();
  });

  const post = async (user: string, path: string, body: string, headers: Record<string, string> = {}) => {
    const sent = { 'content-type': 'application/json', 'x-user': user, ...headers };
    const res = await fetch(`${url}${path}`, { method: 'POST', headers: sent, body });
    return {
      status: res.status,
      replayed: res.headers.get('idempotent-replayed'),
      location: res.headers.get('location'),
      body: (await res.json()) as any,
    };
  };

  it('runs a key’s first request once; the same request replays its answer, another is refused (model)', async () => {
    const request = fc.record({
      key: fc.constantFrom('k1', 'k2', 'k3'),
      path: fc.constantFrom('/t', '/t?x=1'),
      body: fc.constantFrom('{"a":1}', '{"a":2}'),
      ifMatch: fc.constantFrom('', '"1"'),
    });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(request, { minLength: 1, maxLength: 8 }), async (requests) => {
        const user = `model-${run++}`;
        const firsts = new Map<string, { sent: string; answer: unknown; location: string | null }>();
        for (const r of requests) {
          const sent = JSON.stringify([r.path, r.body, r.ifMatch]);
          const headers = { 'idempotency-key': r.key, ...(r.ifMatch ? { 'if-match': r.ifMatch } : {}) };
          const res = await post(user, r.path, r.body, headers);
          const first = firsts.get(r.key);
          if (!first) {
            expect(res.status).toBe(201);
            expect(res.replayed).toBeNull();
            firsts.set(r.key, { sent, answer: res.body, location: res.location });
          } else if (first.sent === sent) {
            expect(res.status).toBe(201);
            expect(res.replayed).toBe('true');
            const { key: _secret, token: _token, ...stored } = first.answer as Record<string, unknown>;
            expect(res.body).toEqual(stored);
            expect(res.location).toBe(first.location);
          } else {
            expect(res.status).toBe(422);
            expect(res.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
          }
        }
        expect(ran.get(user)).toBe(firsts.size);
      }),
      { ...runs, numRuns: Math.ceil(runs.numRuns / 10) },
    );
  });

  it('answers 409 while the first request runs, and keeps no 5xx answer', async () => {
    const first = post('u-busy', '/t', '{"hold":1}', { 'idempotency-key': 'busy' });
    while (!release) await new Promise((resolve) => setTimeout(resolve, 10));
    const during = await post('u-busy', '/t', '{"hold":1}', { 'idempotency-key': 'busy' });
    expect(during.status).toBe(409);
    expect(during.body.error.code).toBe('IDEMPOTENCY_KEY_IN_USE');
    release();
    expect((await first).status).toBe(201);

    expect((await post('u-fail', '/t', '{"fail":1}', { 'idempotency-key': 'f' })).status).toBe(503);
    expect((await post('u-fail', '/t', '{"fail":1}', { 'idempotency-key': 'f' })).replayed).toBeNull();
    expect(ran.get('u-fail')).toBe(2);
  });

  it('keeps keys per caller; replays only while the caller still holds the permissions it was granted by', async () => {
    expect((await post('u-a', '/t', '{}', { 'idempotency-key': 'same' })).status).toBe(201);
    expect((await post('u-b', '/t', '{}', { 'idempotency-key': 'same' })).replayed).toBeNull();
    const refused = await post('u-a', '/t', '{}', { 'idempotency-key': 'same', 'x-can-create': 'no' });
    expect(refused.status).toBe(403);
    expect([ran.get('u-a'), ran.get('u-b')]).toEqual([1, 1]);
  });

  it('gives an expired key to the next request; a claim left running by a dead request only to its retry', async () => {
    const sql = (text: string, params: unknown[]) => db.orm.em.getConnection().execute(text, params as never[]);
    const key = { 'idempotency-key': 'old' };
    expect((await post('u-old', '/t', '{"a":1}', key)).status).toBe(201);
    await sql(`update "idempotency_key" set "expires_at" = now() - interval '1s' where "caller" = ?`, ['user:u-old']);
    expect((await post('u-old', '/t', '{"a":2}', key)).replayed).toBeNull();
    // The process answering it died after claiming the key: its claim stays `running`.
    const abandon = (seconds: number) =>
      sql(
        `update "idempotency_key" set "state" = 'running', "started_at" = now() - make_interval(secs => ?)
         where "caller" = 'user:u-old'`,
        [seconds],
      );
    await abandon(5);
    expect((await post('u-old', '/t', '{"a":2}', key)).status).toBe(409);
    await abandon(600);
    expect((await post('u-old', '/t', '{"a":3}', key)).body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    const retry = await post('u-old', '/t', '{"a":2}', key);
    expect([retry.status, retry.replayed]).toEqual([201, null]);
    expect(ran.get('u-old')).toBe(3);
  });

  it('refuses a key that is not 1 to 255 printable ASCII characters with 400 naming the header', async () => {
    for (const key of ['x'.repeat(256), 'caf\u00e9']) {
      const res = await post('u-bad', '/t', '{}', { 'idempotency-key': key });
      expect(res.status, key).toBe(400);
      expect(res.body.error.details).toEqual({ parameter: 'Idempotency-Key' });
    }
    expect(ran.get('u-bad')).toBeUndefined();
  });
});
