// Black-box property: an admin's read right after their own write returns that write (no cache, no lag), in-process.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PROJECT } from './support/client';
import { UNLIMITED } from './support/service';
import { useService } from './support/setup';

const RUNS = Number(process.env.FC_RUNS ?? 5);
const SEED = Number(process.env.FC_SEED ?? 20261125);
const app = `/app/v1${PROJECT}`;

const word = fc.constantFrom('harvest', 'meadow', 'copper', 'lantern', 'report');
const edit = fc.record(
  {
    name: word,
    content: fc.record({ title: word, count: fc.nat(9) }),
    tags: fc.subarray(['news', 'public', 'secret']),
    description: fc.option(word, { nil: null }),
    isTemplate: fc.boolean(),
  },
  { requiredKeys: ['content'] },
);
/** Writes an admin makes to an entry; some are refused in some states (404, 409, 422: nothing changes). */
const op = fc.oneof(
  fc.record({ kind: fc.constant('put' as const), target: fc.nat(1), body: edit }),
  ...(['publish', 'unpublish', 'discard', 'delete', 'restore'] as const).map((kind) =>
    fc.record({ kind: fc.constant(kind), target: fc.nat(1) }),
  ),
);

describe('an admin reads their own writes at once (property, in-process gateway, read cache on)', () => {
  const fx = useService({ env: UNLIMITED });

  it('GET after PUT, publish, unpublish, discard, delete or restore answers the write’s own body', async () => {
    const call = (method: string, path: string, body?: unknown) => fx.api.call(method, path, { token: fx.token, body });
    const type = await call('POST', `${app}/content-types`, { name: `Rw${Date.now()}`, schema: { type: 'object' } });
    await call('POST', `${app}/content-types/${type.body.id}/publish`);
    const { key } = (await call('POST', `${app}/api-keys`, { name: 'rw' })).body;

    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 12 }), async (ops) => {
        // Each run starts from two new published entries, read by a key first so the read cache holds them.
        const last: Record<string, unknown>[] = [];
        for (let i = 0; i < 2; i++) {
          const created = await call('POST', `${app}/content`, {
            typeId: type.body.id,
            name: `entry ${i}`,
            content: { title: 'first' },
          });
          expect(created.status).toBe(201);
          last.push((await call('POST', `${app}/content/${created.body.id}/publish`)).body);
          await fx.api.call('GET', `/api/v1${PROJECT}/content/${created.body.id}`, { apiKey: key });
        }
        for (const o of ops) {
          const id = last[o.target].id as string;
          const path = o.kind === 'put' ? `${app}/content/${id}` : `${app}/content/${id}/${o.kind}`;
          const written = await call(o.kind === 'put' ? 'PUT' : 'POST', path, o.kind === 'put' ? o.body : undefined);
          if (written.status < 300) last[o.target] = written.body;
          else expect([404, 409, 422]).toContain(written.status);
          const read = await call('GET', `${app}/content/${id}`);
          expect(read.status).toBe(200);
          expect(read.body).toEqual(last[o.target]);
          expect(read.headers.get('etag')).toBe(`"${last[o.target].revision}"`);
        }
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });
});
