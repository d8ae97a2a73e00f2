// Black-box: scheduled publishing — REST and GraphQL, exactly once across replicas, creator's rights, cancellation, crash recovery.
import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { Client, PROJECT } from './support/client';
import { startService, type TestService } from './support/service';
import { useService } from './support/setup';
import { waitFor } from './support/wait';

const base = `/app/v1${PROJECT}`;
const inSeconds = (s: number) => new Date(Date.now() + s * 1000).toISOString();

/** Workers poll every second for due schedules; a loaded CI machine may still take far longer to run one. */
const SCHEDULE_WAIT = { timeoutMs: 60_000, intervalMs: 250 };

describe('scheduled publishing', () => {
  const fx = useService();
  let replica: TestService | undefined;
  afterAll(() => replica?.destroy());
  const call = (method: string, path: string, body?: unknown, token = fx.token) =>
    fx.api.call(method, path, { token, body });
  const schedule = (id: string) => call('GET', `${base}/schedules/${id}`).then((r) => r.body);
  const settled = (id: string) =>
    waitFor(
      `schedule ${id}`,
      async () => ((s) => (s.status === 'pending' ? undefined : s))(await schedule(id)),
      SCHEDULE_WAIT,
    );

  let typeId = '';
  const entry = async (name: string) => {
    if (!typeId) {
      const type = await call('POST', `${base}/content-types`, {
        name: 'Scheduled',
        schema: { type: 'object', properties: { title: { type: 'string' } } },
      });
      typeId = type.body.id;
      await call('POST', `${base}/content-types/${typeId}/publish`);
    }
    const created = await call('POST', `${base}/content`, { typeId, name, content: { title: name } });
    expect(created.status).toBe(201);
    return created.body.id as string;
  };

  it('validates, lists soonest first, cancels, and refuses cancelling twice', async () => {
    const id = await entry('validate');
    const past = await call('POST', `${base}/schedules`, {
      resourceType: 'content',
      resourceId: id,
      action: 'publish',
      at: inSeconds(-10),
    });
    expect(past.status).toBe(422);
    expect(past.body.error.details.errors).toEqual([expect.objectContaining({ path: '/at' })]);
    const far = await call('POST', `${base}/schedules`, {
      resourceType: 'content',
      resourceId: id,
      action: 'publish',
      at: inSeconds(400 * 86400),
    });
    expect(far.status).toBe(422);
    // One calendar year ahead, not 366 days; and a real calendar day (not rolled over into the next month).
    const nextYear = new Date();
    nextYear.setUTCFullYear(nextYear.getUTCFullYear() + 1);
    const justPast = await call('POST', `${base}/schedules`, {
      resourceType: 'content',
      resourceId: id,
      action: 'publish',
      at: new Date(nextYear.getTime() + 3_600_000).toISOString(),
    });
    expect(justPast.status).toBe(422);
    const feb30 = `${nextYear.getUTCFullYear() - (nextYear.getUTCMonth() < 2 ? 1 : 0)}-02-30T10:00:00Z`;
    const impossible = await call('POST', `${base}/schedules`, {
      resourceType: 'content',
      resourceId: id,
      action: 'publish',
      at: feb30,
    });
    expect([impossible.status, impossible.body.error.details.errors[0].path]).toEqual([422, '/at']);
    const wrong = await call('POST', `${base}/schedules`, {
      resourceType: 'assets',
      resourceId: id,
      action: 'archive',
      at: inSeconds(60),
    });
    expect(wrong.body.error.details.errors.map((e: { path: string }) => e.path)).toEqual(['/resourceType', '/action']);
    const unknown = await call('POST', `${base}/schedules`, {
      resourceType: 'content',
      resourceId: 'nope',
      action: 'publish',
      at: inSeconds(60),
    });
    expect(unknown.status).toBe(404);

    const later = await call('POST', `${base}/schedules`, {
      resourceType: 'content',
      resourceId: id,
      action: 'publish',
      at: inSeconds(7200),
    });
    const sooner = await call('POST', `${base}/schedules`, {
      resourceType: 'content',
      resourceId: id,
      action: 'unpublish',
      at: inSeconds(3600),
    });
    expect(later.status).toBe(201);
    expect(later.body).toMatchObject({
      resourceType: 'content',
      resourceId: id,
      action: 'publish',
      status: 'pending',
      createdBy: expect.any(String),
    });
    const list = await call('GET', `${base}/schedules?resourceId=${id}`);
    expect(list.body.data.map((s: { id: string }) => s.id)).toEqual([sooner.body.id, later.body.id]);
    const badStatus = await call('GET', `${base}/schedules?status=later`);
    expect(badStatus.status).toBe(400);

    const cancelled = await call('DELETE', `${base}/schedules/${sooner.body.id}`);
    expect(cancelled.body.status).toBe('cancelled');
    const again = await call('DELETE', `${base}/schedules/${sooner.body.id}`);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('INVALID_STATUS_TRANSITION');

    const gql = await fx.api.graphql(
      `query($id: ID) { schedules(organizationId: "default", projectId: "default", resourceId: $id, status: pending) { data { id action status } } }`,
      { id },
      { token: fx.token },
    );
    expect(gql.body.data?.schedules.data).toEqual([{ id: later.body.id, action: 'publish', status: 'pending' }]);
  });

  it('cancels the pending schedules of a deleted resource', async () => {
    const id = await entry('deleted');
    const s = await call('POST', `${base}/schedules`, {
      resourceType: 'content',
      resourceId: id,
      action: 'publish',
      at: inSeconds(3600),
    });
    await call('DELETE', `${base}/content/${id}`);
    expect((await schedule(s.body.id)).status).toBe('cancelled');
  });

  it('fails with FORBIDDEN when the creator lost the publish flag before the schedule ran', async () => {
    const role = await call('POST', '/app/v1/organizations/default/roles', {
      name: 'Scheduler',
      permissions: { content: { create: true, read: true, update: true, publish: true }, contentTypes: { read: true } },
    });
    expect(role.status).toBe(201);
    const user = await call('POST', '/app/v1/organizations/default/users', {
      email: 'scheduler@example.com',
      name: 'Scheduler',
      password: 'scheduler password 1',
      roleId: role.body.id,
    });
    expect(user.status).toBe(201);
    const token = await fx.api.login('scheduler@example.com', 'scheduler password 1');
    const id = await entry('forbidden');
    const s = await call(
      'POST',
      `${base}/schedules`,
      { resourceType: 'content', resourceId: id, action: 'publish', at: inSeconds(3) },
      token,
    );
    expect(s.status).toBe(201);
    await call('PUT', `/app/v1/organizations/default/roles/${role.body.id}`, {
      permissions: { content: { create: true, read: true, update: true, publish: false } },
    });
    const done = await settled(s.body.id);
    expect(done).toMatchObject({ status: 'failed', error: { code: 'FORBIDDEN', message: expect.any(String) } });
    expect((await call('GET', `${base}/content/${id}`)).body.status).toBe('draft');
  });

  it('records a refused action (the state table) on the schedule', async () => {
    const id = await entry('refused');
    const s = await call('POST', `${base}/schedules`, {
      resourceType: 'content',
      resourceId: id,
      action: 'unpublish',
      at: inSeconds(2),
    });
    expect(await settled(s.body.id)).toMatchObject({ status: 'failed', error: { code: 'INVALID_STATUS_TRANSITION' } });
  });

  it('runs 50 schedules due in the same second exactly once across two replicas', async () => {
    replica = await startService({ databaseUrl: fx.service.databaseUrl });
    await entry('bulk warm-up');
    const ids: string[] = [];
    for (let i = 0; i < 50; i += 10)
      ids.push(...(await Promise.all(Array.from({ length: 10 }, (_, j) => entry(`bulk ${i + j}`)))));
    // Far enough ahead that all 50 are created first, even on a busy machine.
    const at = inSeconds(20);
    const other = new Client(replica.url);
    const schedules = await Promise.all(
      ids.map((id, i) =>
        (i % 2 ? other : fx.api).call('POST', `${base}/schedules`, {
          token: fx.token,
          body: { resourceType: 'content', resourceId: id, action: 'publish', at },
        }),
      ),
    );
    expect(schedules.map((s) => s.status)).toEqual(schedules.map(() => 201));
    for (const s of schedules) expect(await settled(s.body.id)).toMatchObject({ status: 'done' });
    await Promise.all(
      ids.map(async (id) => {
        const versions = await call('GET', `${base}/content/${id}/versions`);
        expect(versions.body.data.map((v: { version: number }) => v.version)).toEqual([1]);
        expect((await call('GET', `${base}/content/${id}`)).body).toMatchObject({ status: 'published', version: 1 });
        const events = await call('GET', `${base}/content/${id}/events`);
        expect((events.body.data as { type: string }[]).filter((e) => e.type === 'content.published')).toHaveLength(1);
      }),
    );
  }, 400_000);

  it('still runs a schedule whose claiming process was killed with SIGKILL', async () => {
    const id = await entry('crash');
    const s = await call('POST', `${base}/schedules`, {
      resourceType: 'content',
      resourceId: id,
      action: 'publish',
      at: inSeconds(8),
    });
    // A stand-in replica: claims the row the way the worker does (FOR UPDATE in an open transaction), then is killed.
    const claimer = spawn(
      process.execPath,
      [
        '-e',
        `const { Client } = require('pg');
         (async () => {
           const c = new Client({ connectionString: process.env.URL });
           await c.connect();
           await c.query('begin');
           const r = await c.query('select "id" from "schedule" where "id" = $1 and "status" = $2 for update skip locked', [process.env.ID, 'pending']);
           console.log('claimed ' + r.rowCount);
           setInterval(() => {}, 1000);
         })();`,
      ],
      { env: { ...process.env, URL: fx.service.databaseUrl!, ID: s.body.id }, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      const claimed = await new Promise<string>((r) =>
        claimer.stdout!.once('data', (d: Buffer) => r(String(d).trim())),
      );
      expect(claimed).toBe('claimed 1');
      // While the claim is held the schedule stays pending, past its time.
      await waitFor('its time', () => Date.now() > Date.parse(s.body.at) + 3000, SCHEDULE_WAIT);
      expect((await schedule(s.body.id)).status).toBe('pending');
    } finally {
      claimer.kill('SIGKILL');
    }
    expect(await settled(s.body.id)).toMatchObject({ status: 'done' });
    expect((await call('GET', `${base}/content/${id}`)).body.status).toBe('published');
  }, 180_000);
});
