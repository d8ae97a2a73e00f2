// Black-box: optimistic concurrency — `revision`, `ETag`, `If-Match` → 412 PRECONDITION_FAILED, GraphQL `expectedRevision`.
import fc from 'fast-check';
import { Client as Pg } from 'pg';
import { describe, expect, it } from 'vitest';
import { PROJECT } from './support/client';
import { UNLIMITED } from './support/service';
import { useService } from './support/setup';

const base = `/app/v1${PROJECT}`;

describe('optimistic concurrency', () => {
  const fx = useService();
  const call = (method: string, path: string, body?: unknown, ifMatch?: string) =>
    fx.api.call(method, path, { token: fx.token, body, headers: ifMatch ? { 'if-match': ifMatch } : {} });

  it('lets exactly one of two editors holding revision 3 win; lifecycle POSTs and DELETE honour If-Match too', async () => {
    const created = await call('POST', `${base}/content-types`, { name: 'Race', schema: { type: 'object' } });
    expect(created.status).toBe(201);
    expect(created.body.revision).toBe(1);
    expect(created.headers.get('etag')).toBe('"1"');
    const id = created.body.id;
    await call('PUT', `${base}/content-types/${id}`, { description: 'two' });
    await call('PUT', `${base}/content-types/${id}`, { description: 'three' });
    const read = await call('GET', `${base}/content-types/${id}`);
    expect(read.body.revision).toBe(3);
    expect(read.headers.get('etag')).toBe('"3"');

    const [a, b] = await Promise.all([
      call('PUT', `${base}/content-types/${id}`, { description: 'editor A' }, read.headers.get('etag')!),
      call('PUT', `${base}/content-types/${id}`, { description: 'editor B' }, read.headers.get('etag')!),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 412]);
    const [winner, loser] = a.status === 200 ? [a, b] : [b, a];
    expect(winner.body.revision).toBe(4);
    expect(winner.headers.get('etag')).toBe('"4"');
    expect(loser.body.error).toMatchObject({ code: 'PRECONDITION_FAILED', details: { currentRevision: 4 } });
    const after = await call('GET', `${base}/content-types/${id}`);
    expect(after.body).toMatchObject({ revision: 4, description: winner.body.description });

    // Lifecycle: a stale revision changes nothing (no version, no event), the current one goes through.
    const stale = await call('POST', `${base}/content-types/${id}/publish`, undefined, '"3"');
    expect(stale.status).toBe(412);
    expect(stale.body.error.details.currentRevision).toBe(4);
    expect((await call('GET', `${base}/content-types/${id}/versions`)).body.data).toEqual([]);
    const published = await call('POST', `${base}/content-types/${id}/publish`, undefined, '"4"');
    expect(published.status).toBe(200);
    expect(published.body).toMatchObject({ status: 'published', revision: 5 });

    const staleDelete = await call('DELETE', `${base}/content-types/${id}`, undefined, 'W/"4"');
    expect(staleDelete.status).toBe(412);
    expect((await call('GET', `${base}/content-types/${id}`)).body.status).toBe('published');
    const garbage = await call('DELETE', `${base}/content-types/${id}`, undefined, 'not-a-revision');
    expect(garbage.status).toBe(412);
    const deleted = await call('DELETE', `${base}/content-types/${id}`, undefined, '"5"');
    expect(deleted.body).toMatchObject({ status: 'deleted', revision: 6 });
    // Without If-Match, writes behave as before.
    expect((await call('POST', `${base}/content-types/${id}/restore`)).status).toBe(200);
  });

  it('refuses a stale If-Match on tags, roles and API keys even when the write would change nothing', async () => {
    const tag = await call('POST', `${base}/tags`, { name: 'race', color: '#fff' });
    expect(tag.body.revision).toBe(1);
    const recolored = await call('PUT', `${base}/tags/${tag.body.id}`, { color: '#000' }, '"1"');
    expect(recolored.body.revision).toBe(2);
    const same = await call('PUT', `${base}/tags/${tag.body.id}`, { color: '#000' }, '"1"');
    expect(same.status).toBe(412);
    const staleDelete = await call('DELETE', `${base}/tags/${tag.body.id}`, undefined, '"1"');
    expect(staleDelete.status).toBe(412);
    expect((await call('GET', `${base}/tags/${tag.body.id}`)).status).toBe(200);

    const key = await call('POST', `${base}/api-keys`, { name: 'revision key' });
    const revoke = await call('POST', `${base}/api-keys/${key.body.id}/revoke`, undefined, '"7"');
    expect(revoke.status).toBe(412);
    expect((await call('GET', `${base}/api-keys/${key.body.id}`)).body.status).toBe('active');

    const role = await call('POST', '/app/v1/organizations/default/roles', { name: 'Racer', permissions: {} });
    expect(role.status).toBe(201);
    const renamed = await call(
      'PUT',
      `/app/v1/organizations/default/roles/${role.body.id}`,
      { name: 'Racer 2' },
      `"${role.body.revision}"`,
    );
    expect(renamed.headers.get('etag')).toBe(`"${role.body.revision + 1}"`);
  });

  it('lets concurrent writes without If-Match all succeed, one revision and one event each (property)', async () => {
    const RUNS = Number(process.env.FC_RUNS ?? 4);
    const SEED = Number(process.env.FC_SEED ?? 20261125);
    const view = [
      'export interface Props { title: string }',
      "export function metadata() { return { title: 'Writers', description: 'Concurrent writers' }; }",
      'export default function render(props: Props) { return props.title; }',
    ].join('\n');
    const kinds = {
      components: {
        create: (name: string) => ({ name, type: 'view', content: view }),
        edit: (n: number) => ({ metadata: { n } }),
      },
      'content-types': {
        create: (name: string) => ({ name, schema: { type: 'object' } }),
        edit: (n: number) => ({ description: `${n}` }),
      },
    };
    const kind = fc.constantFrom(...(Object.keys(kinds) as (keyof typeof kinds)[]));
    const pg = new Pg({ connectionString: fx.service.databaseUrl });
    await pg.connect();
    try {
      await fc.assert(
        fc.asyncProperty(kind, fc.integer({ min: 2, max: 6 }), async (kind, n) => {
          const created = await call('POST', `${base}/${kind}`, kinds[kind].create(`Writers ${Math.random()}`));
          expect(created.status).toBe(201);
          const id = created.body.id;
          // Without If-Match, writes behave as before: the row lock queues them, none answers 412.
          const edit = (i: number) => call('PUT', `${base}/${kind}/${id}`, kinds[kind].edit(i));
          const writes = await Promise.all([...Array(n).keys()].map(edit));
          expect(writes.map((w) => w.status)).toEqual(writes.map(() => 200));
          expect((await call('GET', `${base}/${kind}/${id}`)).body.revision).toBe(1 + n);
          const events = await pg.query('select count(*)::int n from event where resource_id = $1 and type = $2', [
            id,
            `${kind}.updated`,
          ]);
          expect(events.rows[0].n).toBe(n);
        }),
        { numRuns: RUNS, seed: SEED },
      );
    } finally {
      await pg.end();
    }
  });

  it('takes expectedRevision on GraphQL mutations', async () => {
    const created = await call('POST', `${base}/content-types`, { name: 'GraphRace', schema: { type: 'object' } });
    const mutation = `mutation($id: ID!, $rev: Int) { updateContentType(organizationId: "default", projectId: "default", id: $id, input: { description: "x" }, expectedRevision: $rev) { revision } }`;
    const stale = await fx.api.graphql(mutation, { id: created.body.id, rev: 9 }, { token: fx.token });
    expect(stale.body.errors?.[0].extensions).toMatchObject({
      code: 'PRECONDITION_FAILED',
      details: { currentRevision: 1 },
    });
    const ok = await fx.api.graphql(mutation, { id: created.body.id, rev: 1 }, { token: fx.token });
    expect(ok.body.data?.updateContentType).toEqual({ revision: 2 });
  });
});

/** One entry's script: edits, publishes, and two publishes sent at once (a double click, a retry racing the first). */
const step = fc.constantFrom('update' as const, 'publish' as const, 'publishTwice' as const);
/** Two to five entries, each with its own script. */
const scriptsOfEntries = fc.array(fc.array(step, { minLength: 1, maxLength: 6 }), { minLength: 2, maxLength: 5 });

describe('concurrent edit and publish cycles (property, real PostgreSQL)', () => {
  const fx = useService({ env: UNLIMITED });
  const RUNS = Number(process.env.FC_RUNS ?? 4);
  const SEED = Number(process.env.FC_SEED ?? 20261125);
  const call = (method: string, path: string, body?: unknown) => fx.api.call(method, path, { token: fx.token, body });

  it('gives each entry consecutive versions, one event per acknowledged change and none for a refusal', async () => {
    const type = (await call('POST', `${base}/content-types`, { name: 'Cycles', schema: { type: 'object' } })).body;
    await call('POST', `${base}/content-types/${type.id}/publish`);
    const pg = new Pg({ connectionString: fx.service.databaseUrl });
    await pg.connect();
    try {
      await fc.assert(
        fc.asyncProperty(scriptsOfEntries, async (scripts) => {
          // Every entry runs its script while all the others run theirs.
          const outcomes = await Promise.all(
            scripts.map(async (script, e) => {
              const input = { typeId: type.id, name: `cycle ${e} ${Math.random()}`, content: {} };
              const id = (await call('POST', `${base}/content`, input)).body.id;
              const published: number[] = [];
              let updates = 0;
              for (const [n, action] of script.entries()) {
                if (action === 'update') {
                  const res = await call('PUT', `${base}/content/${id}`, { content: { n } });
                  expect(res.status).toBe(200);
                  updates++;
                  continue;
                }
                const publish = () => call('POST', `${base}/content/${id}/publish`);
                const attempts = await Promise.all(action === 'publish' ? [publish()] : [publish(), publish()]);
                for (const res of attempts) {
                  // Publishing what is already published is refused and must leave no trace.
                  if (res.status === 200) published.push(res.body.version);
                  else expect(res.body.error?.code).toBe('INVALID_STATUS_TRANSITION');
                }
              }
              return { id, published, updates };
            }),
          );
          for (const { id, published, updates } of outcomes) {
            const consecutive = published.map((_, i) => i + 1);
            expect(
              [...published].sort((a, b) => a - b),
              'acknowledged versions',
            ).toEqual(consecutive);
            const rows = await pg.query('select version from content_version where content_id = $1 order by version', [
              id,
            ]);
            expect(
              rows.rows.map((r) => r.version),
              'version rows',
            ).toEqual(consecutive);
            const events = await pg.query('select type, version from event where resource_id = $1 order by version', [
              id,
            ]);
            const of = (type: string) => events.rows.filter((r) => r.type === type);
            expect(
              of('content.published').map((r) => r.version),
              'content.published events',
            ).toEqual(consecutive);
            expect(of('content.updated'), 'content.updated events').toHaveLength(updates);
            expect(of('content.created'), 'content.created events').toHaveLength(1);
            expect(events.rows, 'no other events').toHaveLength(published.length + updates + 1);
          }
        }),
        { numRuns: RUNS, seed: SEED },
      );
    } finally {
      await pg.end();
    }
  });
});
