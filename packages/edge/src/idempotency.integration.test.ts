// Idempotency-Key on a real database (PostgreSQL and PGlite): the key's decisions, replays, expiry and abandoned claims.
import type { Logger } from '@cp/config';
import { openTestDatabase, type TestDatabase } from '@cp/db/testing';
import { toErrorEnvelope } from '@cp/errors';
import type { Context } from '@cp/principal';
import express, { type Request, type Response } from 'express';
import fc from 'fast-check';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idempotency } from './idempotency';
import { readBody } from './request-body';
import { respond } from './response-seam';

/** The error envelope, as each host's own error writer answers it. */
const sendError = (res: Response, err: unknown) => {
  const { status, body } = toErrorEnvelope(err, { requestId: 'test', lang: 'en', variablesFrom: 'body' });
  respond(res.status(status).type('application/json'), JSON.stringify(body));
};

const runs = { seed: Number(process.env.FC_SEED ?? 20261125), numRuns: Number(process.env.FC_RUNS ?? 200) };

describe.each(['postgres', 'pglite'] as const)('Idempotency-Key on %s', (kind) => {
  let db: TestDatabase;
  let server: Server;
  let url: string;
  /** How often the route ran, per caller. */
  const ran = new Map<string, number>();
  let release: (() => void) | undefined;

  beforeAll(async () => {
    db = await openTestDatabase(kind, []);
    const app = express();
    app.use((req, res, next) => {
      const permissions = req.header('x-can-create') === 'no' ? {} : { things: { create: true } };
      const principal = { kind: 'user', userId: req.header('x-user'), organizationId: 'o', permissions };
      res.locals.context = { principal } as Partial<Context>;
      next();
    });
    const logger = pino({ level: 'silent' }) as unknown as Logger;
    const plain = idempotency({ orm: db.orm, logger, body: 'raw', onError: sendError });
    // A host's own key space within the caller's (a standalone service's /graphql), chosen by `x-scope` here.
    const scoped = idempotency({
      orm: db.orm,
      logger,
      body: 'raw',
      onError: sendError,
      scope: 'content/graphql',
    });
    app.use(readBody(1 << 20));
    app.use((req, res, next) => (req.header('x-scope') ? scoped : plain)(req, res, next));
    app.use(async (req: Request & { rawBody?: Buffer }, res: Response) => {
      const user = req.header('x-user')!;
      const count = (ran.get(user) ?? 0) + 1;
      ran.set(user, count);
      (res.locals.context as Context).granted?.add('things.create');
      const body = req.rawBody?.toString() ?? '';
      if (body.includes('hold')) await new Promise<void>((resolve) => (release = resolve));
      res.type('application/json');
      if (body.includes('fail')) return respond(res.status(503), JSON.stringify({ error: { code: 'UNAVAILABLE' } }));
      res.status(201).setHeader('Location', `/things/${count}`);
      respond(res, JSON.stringify({ id: count, body, key: `secret-${count}`, token: 't' }));
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

  it('keeps a scoped key space apart from the caller’s own: each runs once, replays, and refuses another body', async () => {
    const key = { 'idempotency-key': 'spaced' };
    const inScope = { ...key, 'x-scope': '1' };
    const first = await post('u-scope', '/t', '{"a":1}', key);
    const scopedFirst = await post('u-scope', '/t', '{"a":1}', inScope);
    expect([first.status, first.replayed, scopedFirst.status, scopedFirst.replayed]).toEqual([201, null, 201, null]);
    expect(ran.get('u-scope')).toBe(2);
    const scopedRetry = await post('u-scope', '/t', '{"a":1}', inScope);
    expect([scopedRetry.replayed, scopedRetry.body.id]).toEqual(['true', scopedFirst.body.id]);
    expect((await post('u-scope', '/t', '{"a":2}', inScope)).body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    const retry = await post('u-scope', '/t', '{"a":1}', key);
    expect([retry.replayed, retry.body.id]).toEqual(['true', first.body.id]);
    expect(ran.get('u-scope')).toBe(2);
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
