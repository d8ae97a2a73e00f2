// Answers from the pipeline's read-cache stage (admin entry reads, cache/admin-reads.ts; published-read hits,
// cache/client-cache.ts) carry exactly the headers execution gives, whatever `Accept` a client sends: execution leaves
// out the CSP `frame-ancestors` header when content negotiation picks HTML (api-headers.ts: `req.accepts(['json',
// 'html'])`), which `text/*` or `TEXT/HTML` do although neither contains the lower-case string "html".
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresDatabase } from '@cp/db/testing';
import { Client, PROJECT, type HttpResult } from './support/client';
import { startService, UNLIMITED, type TestService } from './support/service';

const app = `/app/v1${PROJECT}`;
const api = `/api/v1${PROJECT}`;
/** Per request, or telling the two paths apart on purpose (`X-Cache`: HIT against the reference's BYPASS). */
const VOLATILE = new Set(['date', 'x-request-id', 'ratelimit-remaining', 'ratelimit-reset', 'keep-alive', 'x-cache']);
const ACCEPTS = ['text/*', 'TEXT/HTML', 'application/json, text/*;q=0.9', 'application/json', '*/*'];

const shape = (res: HttpResult) => ({
  status: res.status,
  body: res.body as unknown,
  headers: Object.fromEntries([...res.headers].filter(([name]) => !VOLATILE.has(name))),
});

describe('stored answers have the headers of executed ones for every Accept', () => {
  let cached: TestService;
  let reference: TestService;
  let drop: () => Promise<void>;
  let token: string;
  let key: string;
  let id: string;

  beforeAll(async () => {
    const db = await createPostgresDatabase();
    drop = db.drop;
    [cached, reference] = await Promise.all([
      startService({ databaseUrl: db.url, env: UNLIMITED }),
      startService({ databaseUrl: db.url, env: { ...UNLIMITED, CACHE: 'off' } }),
    ]);
    const client = new Client(cached.url);
    token = await client.login();
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await client.call(method, path, { token, body });
      expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
      return res.body;
    };
    const type = await call('POST', `${app}/content-types`, { name: 'Headers', schema: { type: 'object' } });
    await call('POST', `${app}/content-types/${type.id}/publish`);
    id = (await call('POST', `${app}/content`, { typeId: type.id, name: 'entry', content: { a: 1 } })).id;
    await call('POST', `${app}/content/${id}/publish`);
    key = (await call('POST', `${app}/api-keys`, { name: 'reader' })).key;
  }, 120_000);

  afterAll(async () => {
    await Promise.all([cached, reference].map((s) => s?.destroy()));
    await drop?.();
  });

  it.each(ACCEPTS)('an admin entry read answered from its stored answer, Accept: %s', async (accept) => {
    const [a, ref] = [new Client(cached.url), new Client(reference.url)];
    const read = (client: Client) =>
      client.call('GET', `${app}/content/${id}`, { token, headers: { accept } }).then(shape);
    await read(a); // the miss that stores the answer
    const answered = await read(a);
    expect(answered).toEqual(await read(ref));
  });

  it.each(ACCEPTS)('a published-read cache hit, Accept: %s', async (accept) => {
    const [a, ref] = [new Client(cached.url), new Client(reference.url)];
    const read = (client: Client) =>
      client.call('GET', `${api}/content/${id}/resolved`, { apiKey: key, headers: { accept } });
    await read(a);
    const hit = await read(a);
    expect(hit.headers.get('x-cache')).toBe('HIT');
    expect(shape(hit)).toEqual(shape(await read(ref)));
  });
});
