// Black-box: two gateway replicas on one PostgreSQL — a write on one is seen by the very next client read on the other.
import { createPostgresDatabase } from '@cp/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, PROJECT } from './support/client';
import { startService, type TestService } from './support/service';

const app = `/app/v1${PROJECT}`;
const api = `/api/v1${PROJECT}`;
const HERO = `export interface Props { title: string }
export function metadata() { return { title: 'Hero', description: 'Big title' }; }
export default function render(p: Props) { return '<h1>' + p.title + '</h1>'; }`;

describe('published-read cache across two replicas (PostgreSQL)', () => {
  let a: TestService;
  let b: TestService;
  let drop: () => Promise<void>;
  let writer: Client;
  let reader: Client;
  let token: string;
  let key: string;
  let typeId: string;
  const write = async (method: string, path: string, body?: unknown) => {
    const res = await writer.call(method, `${app}${path}`, { token, body });
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
    return res.body;
  };
  const readB = (path: string) => reader.call('GET', `${api}${path}`, { apiKey: key });
  /** Reads twice on B so the second answer comes from B's cache when it can: both must be current. */
  const readTwice = async (path: string) => [await readB(path), await readB(path)];

  beforeAll(async () => {
    const db = await createPostgresDatabase();
    drop = db.drop;
    a = await startService({ databaseUrl: db.url });
    b = await startService({ databaseUrl: db.url });
    writer = new Client(a.url);
    reader = new Client(b.url);
    token = await writer.login();
    typeId = (
      await write('POST', '/content-types', {
        name: 'Page',
        schema: { type: 'object', properties: { title: { type: 'string' } } },
      })
    ).id;
    await write('POST', `/content-types/${typeId}/publish`);
    key = (await write('POST', '/api-keys', { name: 'reader' })).key;
  });
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await drop?.();
  });

  it('follows publish, rollback, unpublish and delete of content on the other replica at once', async () => {
    const id = (await write('POST', '/content', { typeId, name: 'Home', content: { title: 'v1' } })).id;
    await write('POST', `/content/${id}/publish`);
    for (const res of await readTwice(`/content/${id}/resolved`))
      expect(res.body).toMatchObject({ version: 1, content: { title: 'v1' } });
    expect((await readB(`/content/${id}/resolved`)).headers.get('x-cache')).toBe('HIT');

    await write('PUT', `/content/${id}`, { content: { title: 'v2' } });
    await write('POST', `/content/${id}/publish`);
    for (const res of await readTwice(`/content/${id}/resolved`))
      expect(res.body).toMatchObject({ version: 2, content: { title: 'v2' } });

    await write('POST', `/content/${id}/rollback`, { version: 1 });
    await write('POST', `/content/${id}/publish`);
    for (const res of await readTwice(`/content/${id}/resolved`))
      expect(res.body).toMatchObject({ version: 3, content: { title: 'v1' } });

    await write('POST', `/content/${id}/unpublish`);
    for (const res of await readTwice(`/content/${id}/resolved`)) expect(res.status).toBe(404);
    for (const res of await readTwice('/content?limit=20'))
      expect(res.body.data.map((c: { id: string }) => c.id)).not.toContain(id);

    await write('POST', `/content/${id}/publish`);
    for (const res of await readTwice('/content?limit=20'))
      expect(res.body.data.map((c: { id: string }) => c.id)).toContain(id);
    await write('DELETE', `/content/${id}`);
    for (const res of await readTwice(`/content/${id}/resolved`)) expect(res.status).toBe(404);
    for (const res of await readTwice('/content?limit=20'))
      expect(res.body.data.map((c: { id: string }) => c.id)).not.toContain(id);
  });

  it('follows content type and package publishes on the other replica at once', async () => {
    for (const res of await readTwice(`/content-types/${typeId}`)) expect(res.body.version).toBe(1);
    await write('PUT', `/content-types/${typeId}`, { description: 'second' });
    await write('POST', `/content-types/${typeId}/publish`);
    for (const res of await readTwice(`/content-types/${typeId}`))
      expect(res.body).toMatchObject({ version: 2, description: 'second' });

    const before = (await readTwice('/packages'))[1];
    expect(before.status).toBe(200);
    // The compiler's sandbox has a wall-clock deadline: on a loaded machine a first attempt may time out.
    for (let attempt = 0; attempt < 5; attempt++) {
      const res = await writer.call('POST', `${app}/components`, {
        token,
        body: { name: 'Hero', type: 'view', content: HERO },
      });
      if (res.status === 201) break;
      expect(JSON.stringify(res.body), JSON.stringify(res.body)).toMatch(/longer than/);
    }
    const pkg = await write('POST', '/packages', {});
    for (const res of await readTwice('/packages'))
      expect(res.body.data.map((p: { version: string }) => p.version)).toContain(pkg.version);
  });

  it('never keeps an answer read before a publish once the publish has answered (reads racing with writes)', async () => {
    const id = (await write('POST', '/content', { typeId, name: 'Raced', content: { title: 'r0' } })).id;
    await write('POST', `/content/${id}/publish`);
    for (let round = 1; round <= 5; round++) {
      await write('PUT', `/content/${id}`, { content: { title: `r${round}` } });
      // Reads on B keep filling the cache while the publish runs on A.
      let racing = true;
      const readers = Array.from({ length: 4 }, async () => {
        while (racing) await readB(`/content/${id}/resolved`);
      });
      await write('POST', `/content/${id}/publish`);
      const after = await readTwice(`/content/${id}/resolved`);
      racing = false;
      await Promise.all(readers);
      for (const res of after) expect(res.body.content).toEqual({ title: `r${round}` });
      // Once the racing reads are over, B's cache holds the new state, not an answer read before the publish.
      for (const res of await readTwice(`/content/${id}/resolved`))
        expect(res.body.content).toEqual({ title: `r${round}` });
    }
    expect((await readB(`/content/${id}/resolved`)).headers.get('x-cache')).toBe('HIT');
  });
});
