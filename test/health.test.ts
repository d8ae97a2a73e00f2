// Black-box: /health turns `degraded` with 503 when the database goes away.
import { createPostgresDatabase } from '@cp/db/testing';
import { describe, expect, it } from 'vitest';
import { Client } from './support/client';
import { startService } from './support/service';

describe('health', () => {
  it('reports degraded with 503 when the database is unreachable', async () => {
    const db = await createPostgresDatabase();
    const service = await startService({ databaseUrl: db.url });
    try {
      const api = new Client(service.url);
      expect((await api.call('GET', '/health')).status).toBe(200);
      await db.drop();
      const res = await api.call('GET', '/health');
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ status: 'degraded', version: expect.any(String) });
    } finally {
      await service.stop('SIGKILL');
    }
  });
});
