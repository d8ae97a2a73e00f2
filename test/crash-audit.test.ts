// Black-box: a SIGKILL of the gateway amid a stream of acknowledged writes loses none of them; versions stay
// consecutive, every committed change has exactly one event, and every event gets its position after the restart.
import { Client as Pg } from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { Client, PROJECT } from './support/client';
import { startService, type TestService } from './support/service';

const base = `/app/v1${PROJECT}`;
const ENTRIES = 12;

describe('SIGKILL amid a stream of writes', () => {
  const running: TestService[] = [];
  afterAll(async () => {
    for (const s of running.reverse()) await s.destroy();
  });

  it('keeps every acknowledged change, with consecutive versions and one event per change', async () => {
    const first = await startService();
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
    running.push(await startService({ databaseUrl: first.databaseUrl }));

    const pg = new Pg({ connectionString: first.databaseUrl });
    await pg.connect();
    try {
      // Events committed before the kill but not yet numbered get their positions from the restarted dispatcher.
      const deadline = Date.now() + 10_000;
      const unnumbered = async () =>
        (await pg.query<{ n: number }>('select count(*)::int as n from "event" where "position" is null')).rows[0].n;
      while ((await unnumbered()) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(await unnumbered()).toBe(0);
      let publishes = 0;
      for (const [id, mine] of acknowledged) {
        const { revision } = (await pg.query('select "revision" from "content" where "id" = $1', [id])).rows[0];
        expect(revision, 'every acknowledged change kept').toBeGreaterThanOrEqual(mine.revision);
        const versions = (
          await pg.query<{ version: number }>(
            'select "version" from "content_version" where "content_id" = $1 order by "version"',
            [id],
          )
        ).rows.map((r) => r.version);
        expect(versions, 'consecutive versions').toEqual(versions.map((_, i) => i + 1));
        for (const v of mine.published) expect(versions).toContain(v);
        publishes += mine.published.length;
        const events = (
          await pg.query<{ type: string; version: number | null }>(
            'select "type", "version" from "event" where "resource_id" = $1',
            [id],
          )
        ).rows;
        const published = events.filter((r) => r.type === 'content.published').map((r) => r.version!);
        expect(
          published.sort((a, b) => a - b),
          'one content.published event per version',
        ).toEqual(versions);
        // Every change adds one to the revision and records one event: creation is revision 1 and one event.
        expect(events, 'one event per committed change').toHaveLength(revision);
      }
      expect(publishes).toBeGreaterThan(0);
    } finally {
      await pg.end();
    }
  }, 60_000);
});
