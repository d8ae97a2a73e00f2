// Black-box: releases and bulk actions over REST — envelope, ETag and If-Match, all-or-nothing publish, a scheduled
// release published once, bulk results in order — on PostgreSQL and on the embedded database `npm start` runs.
import { describe, expect, it } from 'vitest';
import { PROJECT } from './support/client';
import { useService } from './support/setup';
import { waitFor } from './support/wait';

const base = `/app/v1${PROJECT}`;
const SCHEDULE_WAIT = { timeoutMs: 60_000, intervalMs: 250 };

describe.each(['postgres', 'pglite'] as const)('releases and bulk actions (%s)', (database) => {
  const fx = useService({ database });
  const call = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    fx.api.call(method, path, { token: fx.token, body, headers });

  let typeId = '';
  const entry = async (name: string) => {
    if (!typeId) {
      typeId = (await call('POST', `${base}/content-types`, { name: 'Campaign', schema: { type: 'object' } })).body.id;
      await call('POST', `${base}/content-types/${typeId}/publish`);
    }
    const created = await call('POST', `${base}/content`, { typeId, name, content: {} });
    expect(created.status).toBe(201);
    return created.body.id as string;
  };
  const publishItem = (id: string) => ({ resourceType: 'content', resourceId: id, action: 'publish' });

  it('creates, lists, edits with If-Match, validates, and publishes all or nothing', async () => {
    const [a, b] = [await entry('launch a'), await entry('launch b')];
    const bad = await call('POST', `${base}/releases`, {
      name: 'Bad',
      items: [publishItem(a), publishItem(a), { resourceType: 'assets', resourceId: b, action: 'archive' }],
    });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details.errors.map((e: { path: string }) => e.path)).toEqual([
      '/items/1/resourceId',
      '/items/2/resourceType',
      '/items/2/action',
    ]);

    const created = await call('POST', `${base}/releases`, { name: 'Launch', items: [publishItem(a)] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'Launch', status: 'open', revision: 1, publishedAt: null });
    const id = created.body.id as string;
    const list = await call('GET', `${base}/releases?status=open`);
    expect(list.body.data.map((r: { id: string }) => r.id)).toContain(id);
    expect((await call('GET', `${base}/releases?status=published`)).body.data).toEqual([]);

    const got = await call('GET', `${base}/releases/${id}`);
    const stale = await call('PUT', `${base}/releases/${id}`, { name: 'x' }, { 'if-match': '"99"' });
    expect(stale.status).toBe(412);
    const etag = got.headers.get('etag')!;
    expect(etag).toBeTruthy();
    const edited = await call(
      'PUT',
      `${base}/releases/${id}`,
      { items: [publishItem(a), publishItem(b), publishItem('missing')] },
      { 'if-match': etag },
    );
    expect(edited.status).toBe(200);
    expect(edited.body.revision).toBe(2);

    const validation = await call('POST', `${base}/releases/${id}/validate`);
    expect(validation.body).toEqual({
      valid: false,
      problems: [{ resourceType: 'content', resourceId: 'missing', code: 'NOT_FOUND', message: expect.any(String) }],
    });
    const refused = await call('POST', `${base}/releases/${id}/publish`);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({
      code: 'RELEASE_FAILED',
      details: { problems: [{ resourceType: 'content', resourceId: 'missing', code: 'NOT_FOUND' }] },
    });
    expect((await call('GET', `${base}/content/${a}`)).body.status).toBe('draft');

    await call('PUT', `${base}/releases/${id}`, { items: [publishItem(a), publishItem(b)] });
    expect((await call('POST', `${base}/releases/${id}/validate`)).body).toEqual({ valid: true, problems: [] });
    const published = await call('POST', `${base}/releases/${id}/publish`);
    expect(published.status).toBe(200);
    expect(published.body).toMatchObject({ status: 'published', publishedAt: expect.any(String) });
    for (const entryId of [a, b])
      expect((await call('GET', `${base}/content/${entryId}`)).body).toMatchObject({ status: 'published', version: 1 });

    for (const [method, path] of [
      ['PUT', `${base}/releases/${id}`],
      ['DELETE', `${base}/releases/${id}`],
      ['POST', `${base}/releases/${id}/publish`],
    ]) {
      const res = await call(method, path, method === 'PUT' ? { name: 'again' } : undefined);
      expect([res.status, res.body.error.code]).toEqual([409, 'INVALID_STATUS_TRANSITION']);
    }
    const doomed = await call('POST', `${base}/releases`, { name: 'Doomed' });
    expect((await call('DELETE', `${base}/releases/${doomed.body.id}`)).status).toBe(200);
    expect((await call('GET', `${base}/releases/${doomed.body.id}`)).status).toBe(404);
  });

  it('publishes a scheduled release once; a refused one marks the release failed and changes nothing', async () => {
    const [a, b] = [await entry('scheduled a'), await entry('scheduled b')];
    const good = await call('POST', `${base}/releases`, { name: 'On time', items: [publishItem(a)] });
    const bad = await call('POST', `${base}/releases`, {
      name: 'Refused',
      items: [publishItem(b), { resourceType: 'content', resourceId: a, action: 'unpublish' }, publishItem('gone')],
    });
    const at = new Date(Date.now() + 3000).toISOString();
    const wrongAction = await call('POST', `${base}/schedules`, {
      resourceType: 'releases',
      resourceId: good.body.id,
      action: 'unpublish',
      at,
    });
    expect(wrongAction.status).toBe(422);
    const schedules = [];
    for (const release of [good, bad])
      schedules.push(
        await call('POST', `${base}/schedules`, {
          resourceType: 'releases',
          resourceId: release.body.id,
          action: 'publish',
          at,
        }),
      );
    expect(schedules.map((s) => s.status)).toEqual([201, 201]);
    const settled = (id: string) =>
      waitFor(
        `schedule ${id}`,
        async () =>
          ((s) => (s.status === 'pending' ? undefined : s))((await call('GET', `${base}/schedules/${id}`)).body),
        SCHEDULE_WAIT,
      );
    expect(await settled(schedules[0].body.id)).toMatchObject({ status: 'done' });
    expect(await settled(schedules[1].body.id)).toMatchObject({ status: 'failed', error: { code: 'RELEASE_FAILED' } });
    expect((await call('GET', `${base}/releases/${good.body.id}`)).body.status).toBe('published');
    expect((await call('GET', `${base}/releases/${bad.body.id}`)).body.status).toBe('failed');
    expect((await call('GET', `${base}/content/${a}/versions`)).body.data).toHaveLength(1);
    expect((await call('GET', `${base}/content/${b}`)).body.status).toBe('draft');
  });

  it('applies a bulk action per id, in order, with each id’s own status and error', async () => {
    const [a, b] = [await entry('bulk a'), await entry('bulk b')];
    await call('POST', `${base}/content/${b}/publish`);
    const res = await call('POST', `${base}/content/bulk`, { action: 'publish', ids: [a, 'missing', b, a] });
    expect(res.status).toBe(200);
    expect(
      res.body.results.map((r: { id: string; status: number; error: { code: string } | null }) => [
        r.id,
        r.status,
        r.error?.code ?? null,
      ]),
    ).toEqual([
      [a, 200, null],
      ['missing', 404, 'NOT_FOUND'],
      [b, 409, 'INVALID_STATUS_TRANSITION'],
      [a, 409, 'INVALID_STATUS_TRANSITION'],
    ]);
    const tagged = await call('POST', `${base}/content/bulk`, { action: 'addTags', ids: [a, b], tags: ['spring'] });
    expect(tagged.body.results.map((r: { status: number }) => r.status)).toEqual([200, 200]);
    expect((await call('GET', `${base}/content/${b}`)).body).toMatchObject({ tags: ['spring'], status: 'modified' });
    const empty = await call('POST', `${base}/content/bulk`, { action: 'move', ids: [] });
    expect(empty.status).toBe(422);
  });
});
