// The liveness probe on a real PostgreSQL: a process that was itself stalled (a loaded machine) past the probe's
// timeout does not take an answer that arrived meanwhile for a database that stopped answering.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatabaseLiveness } from './liveness';
import { createPostgresDatabase } from './testing';

describe('DatabaseLiveness', () => {
  let database: { url: string; drop(): Promise<void> };
  let liveness: DatabaseLiveness;

  beforeAll(async () => {
    database = await createPostgresDatabase();
    liveness = new DatabaseLiveness({ url: database.url, intervalMs: 60_000, timeoutMs: 200 });
  });
  afterAll(async () => {
    await liveness?.stop();
    await database?.drop();
  });

  it('counts an answer that came while this process was busy past the timeout', async () => {
    expect(await liveness.check()).toBe(true);
    for (let round = 0; round < 5; round++) {
      const probe = liveness.check();
      // The probe's statement is on its way; then this process does nothing else for three timeouts.
      await new Promise((resolve) => setImmediate(resolve));
      const until = Date.now() + 600;
      while (Date.now() < until);
      expect(await probe).toBe(true);
      expect(liveness.up).toBe(true);
    }
  });
});
