// Black-box: `npm start` with no DATABASE_URL serves from embedded PostgreSQL that survives a restart (D14).
import { rmSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Client, PROJECT } from './support/client';
import { startService } from './support/service';

describe('embedded database (PGlite)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cp-embedded-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('starts with no other service, and keeps data across a restart', async () => {
    const first = await startService({ database: 'pglite', dataDir });
    const api = new Client(first.url);
    const token = await api.login();
    const created = await api.call('POST', `/app/v1${PROJECT}/content-types`, {
      token,
      body: { name: 'Persisted', schema: { type: 'object' } },
    });
    expect(created.status).toBe(201);
    await first.destroy();

    const second = await startService({ database: 'pglite', dataDir });
    try {
      const again = new Client(second.url);
      const res = await again.call('GET', `/app/v1${PROJECT}/content-types/${created.body.id}`, { token: await again.login() });
      expect(res.status).toBe(200);
      expect(res.body.name).toBe('Persisted');
    } finally {
      await second.destroy();
    }
  });
});
