// Black-box, two replicas on one PostgreSQL: once a project is deleted, no request reaches it on either replica, even
// where a guard had just found it (the project-existence cache is dropped by the deletion's event).
import { createPostgresDatabase } from '@cp/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from './support/client';
import { startService, UNLIMITED, type TestService } from './support/service';

/** Well above a broker message's delivery, well below the existence cache's 10 s safety net. */
const BROKER_MS = 500;
const READS = [
  'content-types',
  'content',
  'tags',
  'folders',
  'saved-searches',
  'webhooks',
  'components',
  'assets',
  'api-keys',
  'events',
];
const WRITES: [string, unknown][] = [
  ['tags', { name: 'late' }],
  ['folders', { name: 'late' }],
  ['content-types', { name: 'late', schema: { type: 'object' } }],
];

describe('a deleted project on every replica', () => {
  let replicas: TestService[];
  let clients: Client[];
  let token: string;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    const db = await createPostgresDatabase();
    drop = db.drop;
    replicas = [
      await startService({ databaseUrl: db.url, env: UNLIMITED }),
      await startService({ databaseUrl: db.url, env: UNLIMITED }),
    ];
    clients = replicas.map((r) => new Client(r.url));
    token = await clients[0].login();
  });
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.destroy()));
    await drop();
  });

  /** Every read and write of the project through `client`, as statuses by request. */
  const statuses = async (client: Client, base: string) => {
    const answers: Record<string, number> = {};
    for (const path of READS) answers[`GET ${path}`] = (await client.call('GET', `${base}/${path}`, { token })).status;
    for (const [path, body] of WRITES)
      answers[`POST ${path}`] = (await client.call('POST', `${base}/${path}`, { token, body })).status;
    return answers;
  };

  it('answers 404 for every read and write at once on the replica that deleted it, and on the other', async () => {
    for (const round of [1, 2, 3]) {
      const created = await clients[0].call('POST', '/app/v1/organizations/default/projects', {
        token,
        body: { name: `doomed ${round}` },
      });
      expect(created.status).toBe(201);
      const base = `/app/v1/organizations/default/projects/${created.body.id}`;
      // Both replicas' guards have just found the project (and may have cached it).
      for (const client of clients) expect((await client.call('GET', `${base}/tags`, { token })).status).toBe(200);
      expect(
        (await clients[0].call('DELETE', `/app/v1/organizations/default/projects/${created.body.id}`, { token }))
          .status,
      ).toBe(200);
      const gone = Object.fromEntries(
        [...READS.map((p) => `GET ${p}`), ...WRITES.map(([p]) => `POST ${p}`)].map((k) => [k, 404]),
      );
      expect(await statuses(clients[0], base)).toEqual(gone);
      // The other replica follows once the deletion's announcement crosses the broker (docs/limitations.md).
      const started = Date.now();
      for (;;) {
        const answers = await statuses(clients[1], base);
        if (JSON.stringify(answers) === JSON.stringify(gone) || Date.now() - started > BROKER_MS) {
          expect(answers).toEqual(gone);
          break;
        }
      }
    }
  });
});
