// Black-box: a SIGKILL of the gateway amid a stream of acknowledged writes loses none of them; versions stay
// consecutive, every committed change has exactly one event, and every event gets its position after the restart.
// On PostgreSQL and on the embedded database (what `npm start` runs).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Client, PROJECT } from './support/client';
import { startService, type TestService } from './support/service';

const base = `/app/v1${PROJECT}`;
const ENTRIES = 10;

describe.each(['postgres', 'pglite'] as const)('SIGKILL amid a stream of writes (%s)', (database) => {
  const running: TestService[] = [];
  const dataDir = mkdtempSync(join(tmpdir(), 'cp-crash-audit-'));
  afterAll(async () => {
    for (const s of running.reverse()) await s.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps every acknowledged change, with consecutive versions and one event per change', async () => {
    const start = (databaseUrl?: string) => startService({ database, dataDir, databaseUrl, startTimeoutMs: 90_000 });
    const first = await start();
    running.push(first);
    const api = new Client(first.url);
    const token = await api.login();
    const call = (method: string, path: string, body?: unknown) => api.call(method, path, { token, body });
    const type = (await call('POST', `${base}/content-types`, { name: 'Audit', schema: { type: 'object' } })).body;
    await call('POST', `${base}/content-types/${type.id}/publish`);
    const entries = await Promise.all(
      Array.from(
        { length: ENTRIES },
        async (_, e) =>
          (await call('POST', `${base}/content`, { typeId: type.id, name: `audit ${e}`, content: {} })).body
            .id as string,
      ),
    );
    // Each entry cycles through update, publish and rollback until the gateway dies; what was answered 200 is kept.
    const acknowledged = new Map<string, { revision: number; published: number[] }>();
    const loops = entries.map(async (id, e) => {
      const mine = { revision: 1, published: [] as number[] };
      acknowledged.set(id, mine);
      for (let n = 0; ; n++) {
        const step = (n + e) % 5;
        const publish = step === 1 || step === 3;
        let res;
        try {
          if (step === 0 || step === 2) res = await call('PUT', `${base}/content/${id}`, { content: { n } });
          else if (publish) res = await call('POST', `${base}/content/${id}/publish`);
          else res = await call('POST', `${base}/content/${id}/rollback`, { version: 1 });
        } catch {
          return; // the connection died with the gateway: this write's outcome is unknown
        }
        if (res.status >= 500) return;
        if (res.status !== 200) continue;
        mine.revision = res.body.revision;
        if (publish) mine.published.push(res.body.version);
      }
    });
    await new Promise((r) => setTimeout(r, 3000));
    await first.stop('SIGKILL');
    await Promise.all(loops);
    const second = await start(first.databaseUrl);
    running.push(second);

    const after = new Client(second.url);
    const admin = await after.login();
    const get = async (path: string) => (await after.call('GET', path, { token: admin })).body;
    let publishes = 0;
    for (const [id, mine] of acknowledged) {
      const { revision } = await get(`${base}/content/${id}`);
      expect(revision, 'every acknowledged change kept').toBeGreaterThanOrEqual(mine.revision);
      const versions = ((await get(`${base}/content/${id}/versions`)).data as { version: number }[])
        .map((v) => v.version)
        .sort((a, b) => a - b);
      expect(versions, 'consecutive versions').toEqual(versions.map((_, i) => i + 1));
      for (const v of mine.published) expect(versions).toContain(v);
      publishes += mine.published.length;
      // Readers see numbered events only: those committed before the kill but not yet numbered get their positions
      // from the restarted dispatcher. Every change adds one to the revision and records one event (creation: 1 and 1).
      const deadline = Date.now() + 10_000;
      let events: { type: string; version: number | null }[];
      for (;;) {
        events = (await get(`${base}/content/${id}/events?limit=100`)).data;
        if (events.length >= revision || Date.now() > deadline) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(events, 'one event per committed change').toHaveLength(revision);
      const published = events.filter((r) => r.type === 'content.published').map((r) => r.version!);
      expect(
        published.sort((a, b) => a - b),
        'one content.published event per version',
      ).toEqual(versions);
    }
    expect(publishes).toBeGreaterThan(0);
  }, 60_000);
});
