// Black-box: a slow but living PostgreSQL (statements held by a lock, a saturated pool) is not taken for a stalled one:
// the held statements answer 503 when the server cancels them (nothing written), /ready stays 200, nothing else breaks.
import { createPostgresDatabase } from '@cp/db/testing';
import { Client as Pg } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, PROJECT } from './support/client';
import { startService, type TestService } from './support/service';

const app = `/app/v1${PROJECT}`;

describe('PostgreSQL slow, not stalled', () => {
  let database: { url: string; drop(): Promise<void> };
  let service: TestService;
  let client: Client;
  let token: string;
  let typeId: string;

  beforeAll(async () => {
    database = await createPostgresDatabase();
    // A small pool and a short statement timeout: the held statements below fill the pool and are cancelled quickly.
    service = await startService({
      databaseUrl: database.url,
      env: { EMBEDDINGS: 'off', DATABASE_QUERY_TIMEOUT_MS: '1500', DATABASE_POOL_MAX: '4' },
    });
    client = new Client(service.url);
    token = await client.login();
    typeId = (
      await client.call('POST', `${app}/content-types`, { token, body: { name: 'Page', schema: { type: 'object' } } })
    ).body.id;
    await client.call('POST', `${app}/content-types/${typeId}/publish`, { token });
  });
  afterAll(async () => {
    await service?.stop();
    await database?.drop();
  });

  it('answers 503 for statements the server cancels (rolled back), keeps /ready 200 meanwhile, and serves once they are released', async () => {
    const holder = new Pg({ connectionString: database.url });
    await holder.connect();
    try {
      // Every read and write of the content table now waits for this lock, filling the pool.
      await holder.query('begin');
      await holder.query('lock table "content" in access exclusive mode');
      const started = Date.now();
      const held = Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          i % 2
            ? client.call('GET', `${app}/content?limit=5`, { token })
            : client.call('POST', `${app}/content`, { token, body: { typeId, name: 'Blocked', content: {} } }),
        ),
      );
      // The probe has its own connection: a full pool and long statements are not an outage.
      for (let i = 0; i < 4; i++) {
        await new Promise((r) => setTimeout(r, 500));
        const ready = await client.call('GET', '/ready');
        expect(ready.status).toBe(200);
        expect(ready.body).toEqual({ status: 'ready' });
      }
      for (const res of await held) {
        expect(res.status, JSON.stringify(res.body)).toBe(503);
        expect(res.body.error.code).toBe('UNAVAILABLE');
      }
      // Cancelled by the server's statement timeout, in turns of 1.5 s through a pool of 4: not the 10 s pool wait.
      expect(Date.now() - started).toBeLessThan(9000);
    } finally {
      await holder.query('rollback');
    }
    expect((await client.call('GET', `${app}/content?limit=5`, { token })).status).toBe(200);
    expect(
      (await client.call('POST', `${app}/content`, { token, body: { typeId, name: 'After', content: {} } })).status,
    ).toBe(201);
    // A 503 changed nothing: the cancelled writes rolled back.
    const { rows } = await holder.query(`select count(*)::int as n from "content" where "name" = 'Blocked'`);
    await holder.end();
    expect(rows[0].n).toBe(0);
    expect(service.output()).not.toMatch(/does not answer its liveness probe/);
    expect(service.output()).not.toMatch(/"msg":"unexpected error"/);
  });
});
