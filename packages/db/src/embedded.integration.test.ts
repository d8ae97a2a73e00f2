// The embedded database is reachable only through a Unix socket in DATA_DIR that admits this user alone (issue 11).
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from './orm';

describe('embedded PostgreSQL', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cp-embedded-socket-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('serves the pool on a 0600 Unix socket inside DATA_DIR, not on a TCP port', async () => {
    const db = await openDatabase({ config: { database: { poolMax: 2, dataDir } }, modules: [] });
    try {
      const socket = statSync(join(dataDir, 'pgdata', '.s.PGSQL.5432'));
      expect(socket.isSocket()).toBe(true);
      expect(socket.mode & 0o777).toBe(0o600);
      const [row] = await db.orm.em.getConnection().execute<{ ok: number }[]>('select 1 as ok');
      expect(row.ok).toBe(1);
      expect(db.orm.config.get('host')).toBe(join(dataDir, 'pgdata'));
    } finally {
      await db.close();
    }
  });
});
