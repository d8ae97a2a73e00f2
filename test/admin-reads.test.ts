// Differential property: an admin's entry or list read answered from its stored answer (cache/admin-reads.ts) equals the
// full chain's answer on a replica without it, whatever was written before, through which replica, and however the row
// changed.
import { createPostgresDatabase } from '@cp/db/testing';
import fc from 'fast-check';
import pg from 'pg';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, PROJECT, type HttpResult } from './support/client';
import { startService, UNLIMITED, type TestService } from './support/service';

const RUNS = Number(process.env.FC_RUNS ?? 5);
const SEED = Number(process.env.FC_SEED ?? 20261126);
const ORG = '/app/v1/organizations/default';
const app = `/app/v1${PROJECT}`;
const METRICS_TOKEN = 'metrics-token-admin-reads-0123';
/** What a client can tell apart: the status, the body and every header but the per-request ones. */
const COMPARED = [
  'cache-control',
  'content-language',
  'content-security-policy',
  'content-type',
  'etag',
  'ratelimit-limit',
  'x-content-type-options',
  'x-frame-options',
];

const word = fc.constantFrom('harvest', 'meadow', 'copper', 'lantern');
/** A change of the entry's row: an admin's write through either replica, or SQL that leaves `revision` alone. */
const op = fc.oneof(
  fc.record({
    kind: fc.constant('write' as const),
    via: fc.constantFrom('a', 'b'),
    action: fc.constantFrom('put', 'publish', 'unpublish', 'discard', 'delete', 'restore'),
    target: fc.nat(1),
    title: word,
  }),
  fc.record({ kind: fc.constant('sql' as const), target: fc.nat(1), name: word }),
  fc.record({ kind: fc.constant('role' as const), read: fc.boolean() }),
);

describe('admin entry and list reads answered from their stored answers equal the full chain (two replicas and a reference, PostgreSQL)', () => {
  let a: TestService;
  let b: TestService;
  let reference: TestService;
  let drop: () => Promise<void>;
  let sql: pg.Client;
  let owner: string;
  let reader: { token: string; roleId: string };
  const ids: string[] = [];
  const clients = () => ({ a: new Client(a.url), b: new Client(b.url), ref: new Client(reference.url) });

  beforeAll(async () => {
    const db = await createPostgresDatabase();
    drop = db.drop;
    // A and B answer admin entry reads from stored answers (CACHE on, the default); the reference never does (CACHE=off).
    const env = { ...UNLIMITED, METRICS_TOKEN };
    [a, b, reference] = await Promise.all([
      startService({ databaseUrl: db.url, env }),
      startService({ databaseUrl: db.url, env }),
      startService({ databaseUrl: db.url, env: { ...env, CACHE: 'off' } }),
    ]);
    sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
    const api = clients().a;
    owner = await api.login();
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await api.call(method, path, { token: owner, body });
      expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
      return res.body;
    };
    const type = await call('POST', `${app}/content-types`, { name: 'AdminReads', schema: { type: 'object' } });
    await call('POST', `${app}/content-types/${type.id}/publish`);
    for (let i = 0; i < 2; i++)
      ids.push((await call('POST', `${app}/content`, { typeId: type.id, name: `e${i}`, content: { i } })).id);
    // A second admin whose role the property grants and withdraws `content.read`.
    const role = await call('POST', `${ORG}/roles`, { name: 'entry-reader', permissions: readerPermissions(true) });
    const email = `${randomUUID()}@admin-reads.example`;
    await call('POST', `${ORG}/users`, { email, name: 'R', password: 'reader password 123', roleId: role.id });
    reader = { token: await api.login(email, 'reader password 123'), roleId: role.id };
  }, 120_000);

  afterAll(async () => {
    await sql?.end();
    await Promise.all([a, b, reference].map((s) => s?.destroy()));
    await drop?.();
  });

  it('every read through A and B answers what the reference answers, and most are answered from its stored answer', async () => {
    const api = clients();
    const shape = (res: HttpResult) => ({
      status: res.status,
      body: res.body as unknown,
      headers: Object.fromEntries(COMPARED.map((h) => [h, res.headers.get(h)])),
    });
    const read = (client: Client, token: string, id: string) =>
      client.call('GET', `${app}/content/${id}`, { token }).then(shape);
    let readerMayRead = true;
    // A list's stamp follows the project's event log, which every change through the platform writes to; SQL from
    // outside the platform writes none, so a list shows it after the project's next event (docs/architecture/read-cache.md).
    let sqlSinceEvent = false;
    const lists = [`${app}/content`, `${app}/content?limit=1`, `${app}/content?limit=5&sort=updatedAt:asc`];
    const readList = (client: Client, token: string, path: string, headers?: Record<string, string>) =>
      client.call('GET', path, { token, headers }).then(shape);

    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 10 }), async (ops) => {
        for (const o of ops) {
          if (o.kind === 'write') {
            const id = ids[o.target];
            const put = o.action === 'put';
            const res = await api[o.via].call(
              put ? 'PUT' : 'POST',
              put ? `${app}/content/${id}` : `${app}/content/${id}/${o.action}`,
              { token: owner, body: put ? { content: { title: o.title } } : undefined },
            );
            expect([200, 404, 409, 422], JSON.stringify(res.body)).toContain(res.status);
            if (res.status === 200) sqlSinceEvent = false;
          } else if (o.kind === 'sql') {
            sqlSinceEvent = true;
            // Not through the API: no revision, no event. The row's stamp moves all the same.
            await sql.query('update content set name = $1 where id = $2', [`${o.name} ${randomUUID()}`, ids[o.target]]);
          } else {
            const res = await api.a.call('PUT', `${ORG}/roles/${reader.roleId}`, {
              token: owner,
              body: { permissions: readerPermissions(o.read) },
            });
            expect(res.status).toBe(200);
            readerMayRead = o.read;
          }
          // Both entries, twice on each replica, all at once: the second read of an unchanged row is answered from its stored answer,
          // and reads that arrive together share one stamp query (row-stamps.ts).
          const seen = await Promise.all(
            ids.flatMap((id) => (['a', 'b', 'a', 'b'] as const).map((via) => read(api[via], owner, id))),
          );
          for (const [i, id] of ids.entries()) {
            const expected = await read(api.ref, owner, id);
            expect(expected.status).toBe(200);
            for (const answer of seen.slice(i * 4, i * 4 + 4)) expect(answer).toEqual(expected);
            // Conditional reads: the current ETag, alone or weak among others (304 from the revision alone), and a
            // stale one (the whole answer), whatever `Cache-Control` the request carries (fetch sends `no-cache`
            // beside a validator of its own: the condition is still the origin's to answer).
            const tags = [expected.headers.etag!, '"0"', `W/${expected.headers.etag}, "x"`];
            for (const [tag, cacheControl] of tags.flatMap((t) => [
              [t, 'max-age=0'],
              [t, 'no-cache'],
            ])) {
              const headers = { 'if-none-match': tag, 'cache-control': cacheControl };
              const conditional = (client: Client) =>
                client.call('GET', `${app}/content/${id}`, { token: owner, headers }).then(shape);
              const want = await conditional(api.ref);
              expect(want.status).toBe(tag === '"0"' ? 200 : 304);
              for (const via of ['a', 'b'] as const) expect(await conditional(api[via])).toEqual(want);
            }
            // The second admin, on the replica that changed the role (so its principal cache already knows).
            for (let i = 0; i < 2; i++) {
              const answer = await read(api.a, reader.token, id);
              if (readerMayRead) expect(answer).toEqual(expected);
              else expect(answer.status).toBe(403);
            }
          }
          if (sqlSinceEvent) continue;
          for (const path of lists) {
            const seenLists = await Promise.all(
              (['a', 'b', 'a', 'b'] as const).map((via) => readList(api[via], owner, path)),
            );
            const expected = await readList(api.ref, owner, path);
            expect(expected.status, JSON.stringify(expected.body)).toBe(200);
            for (const answer of seenLists) expect(answer).toEqual(expected);
            // The list's validator (Express's, kept with the stored answer) and a stale one.
            for (const tag of [expected.headers.etag!, 'W/"0"']) {
              const headers = { 'if-none-match': tag, 'cache-control': 'max-age=0' };
              const want = await readList(api.ref, owner, path, headers);
              for (const via of ['a', 'b'] as const)
                expect(await readList(api[via], owner, path, headers)).toEqual(want);
            }
            const answer = await readList(api.a, reader.token, path);
            if (readerMayRead) expect(answer).toEqual(expected);
            else expect(answer.status).toBe(403);
          }
        }
      }),
      { numRuns: RUNS, seed: SEED },
    );

    // The property says something only if reads were answered from its stored answer: count them.
    for (const replica of [a, b]) expect(await storedAnswers(replica)).toBeGreaterThan(0);
    expect(await storedAnswers(reference)).toBe(0);
  }, 300_000);
});

function readerPermissions(read: boolean) {
  return { projects: { read: true }, content: { read } };
}

/** `cp_cache_hits_total{cache="admin-reads"}`, 0 when the cache is not there. */
async function storedAnswers(service: TestService): Promise<number> {
  const res = await fetch(`${service.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  const line = (await res.text()).split('\n').find((l) => l.startsWith('cp_cache_hits_total{cache="admin-reads"}'));
  return line ? Number(line.split(' ').at(-1)) : 0;
}
