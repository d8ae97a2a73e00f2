// Black-box: SIGTERM with a backlog of due schedules stops after the schedules in hand, within the shutdown
// timeout; the rest stay pending, and the restarted process takes them up.
import { Client as Pg } from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { Client, PROJECT } from './support/client';
import { expectCleanExit, startService, terminate, type TestService } from './support/service';

const base = `/app/v1${PROJECT}`;
const BACKLOG = 2000;
const SHUTDOWN_TIMEOUT_MS = 3000;

describe('schedules at SIGTERM', () => {
  const running: TestService[] = [];
  let pg: Pg | undefined;
  afterAll(async () => {
    await pg?.end();
    for (const s of running.reverse()) await s.destroy();
  });

  it('stops working a backlog of due schedules at SIGTERM and exits 0 in time; the restart runs the rest', async () => {
    const env = { SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS), EMBEDDINGS: 'off' };
    const first = await startService({ env });
    running.push(first);
    const api = new Client(first.url);
    const token = await api.login();
    const type = await api.call('POST', `${base}/content-types`, {
      token,
      body: { name: 'Backlog', schema: { type: 'object' } },
    });
    expect(type.status).toBe(201);
    pg = new Pg({ connectionString: first.databaseUrl });
    await pg.connect();
    // Unpublishing a draft is refused: each schedule fails quickly, in its own transaction, with no event.
    await pg.query(
      `insert into "schedule" ("id", "organization_id", "project_id", "resource_type", "resource_id", "action", "at",
                               "created_by_id", "created_at", "updated_at")
       select gen_random_uuid()::text, t."organization_id", t."project_id", 'content-types', t."id", 'unpublish',
              now() + interval '1 second', u."id", now(), now()
         from "content_type" t, generate_series(1, $1) n, (select "id" from "user" limit 1) u where t."id" = $2`,
      [BACKLOG, type.body.id],
    );
    const counts = async () =>
      Object.fromEntries(
        (
          await pg!.query<{ status: string; n: number }>(
            `select "status", count(*)::int as n from "schedule" group by "status"`,
          )
        ).rows.map((r) => [r.status, r.n]),
      ) as Record<string, number | undefined>;
    const deadline = Date.now() + 20_000;
    while (!(await counts()).failed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));

    expectCleanExit(await terminate(first), first, SHUTDOWN_TIMEOUT_MS);
    const left = (await counts()).pending ?? 0;
    expect(left, 'left for the next process').toBeGreaterThan(0);
    expect((await counts()).failed).toBe(BACKLOG - left);

    // The restarted process takes up the rest where the stopped one left it.
    running.push(await startService({ databaseUrl: first.databaseUrl, env }));
    const resumed = Date.now() + 20_000;
    while (((await counts()).pending ?? 0) >= left && Date.now() < resumed)
      await new Promise((r) => setTimeout(r, 100));
    expect((await counts()).pending ?? 0).toBeLessThan(left);
    const errors = await pg.query(`select distinct "error"->>'code' as code from "schedule" where "status" = 'failed'`);
    expect(errors.rows).toEqual([{ code: 'INVALID_STATUS_TRANSITION' }]);
  }, 60_000);
});
