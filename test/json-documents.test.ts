// Black-box differential: a JSON document (an entry's `content`, `metadata`) comes back exactly as written, over REST
// and GraphQL, admin and key alike, whatever members it holds (`{id}` objects, `pagination`, nulls, `__proto__`).
// Reproduce with JSON_SEED=<seed>; JSON_RUNS raises the number of documents (default 25).
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { PROJECT } from './support/client';
import { useService } from './support/setup';

const SEED = Number(process.env.JSON_SEED ?? 20261126);
const RUNS = Number(process.env.JSON_RUNS ?? 25);
const app = `/app/v1${PROJECT}`;
const api = `/api/v1${PROJECT}`;
/** Members that mean something to the REST layer elsewhere in an answer (references, pagination), and odd keys. */
const member = fc.constantFrom('id', 'pagination', 'data', 'lastKey', 'createdBy', '__proto__', 'title', 'x');
const value = fc.letrec((tie) => ({
  any: fc.oneof(
    { depthSize: 'small' },
    { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 1 }) },
    { weight: 1, arbitrary: fc.constant({ id: 'looks-like-a-reference' }) },
    { weight: 1, arbitrary: fc.array(tie('any'), { maxLength: 3 }) },
    { weight: 2, arbitrary: tie('object') },
  ),
  object: fc.dictionary(member, tie('any'), { maxKeys: 4 }),
}));
const document = value.object as fc.Arbitrary<Record<string, unknown>>;
/** What JSON makes of a value (-0 is 0); `__proto__` stays an own member, as JSON.parse makes it. */
const asJson = (v: unknown) => JSON.parse(JSON.stringify(v));

describe('JSON documents round-trip unchanged on every path', () => {
  const fx = useService();
  let typeId: string;
  let key: string;

  beforeAll(async () => {
    const call = (path: string, body?: unknown) => fx.api.call('POST', `${app}${path}`, { token: fx.token, body });
    typeId = (await call('/content-types', { name: 'Documents', schema: { type: 'object' } })).body.id;
    await call(`/content-types/${typeId}/publish`);
    key = (await call('/api-keys', { name: 'documents' })).body.key;
  });

  it(`answers ${RUNS} generated documents as written, over REST and GraphQL, to the admin and to a key`, async () => {
    const query = (id: string) =>
      `{ content(organizationId: "default", projectId: "default", id: "${id}") { content metadata } }`;
    const without = (metadata: Record<string, unknown>) => {
      const { author: _a, publishedAt: _p, publishedBy: _b, ...rest } = metadata;
      return rest;
    };
    for (const [i, [content, metadata]] of fc
      .sample(fc.tuple(document, document), { seed: SEED, numRuns: RUNS })
      .entries()) {
      // The service writes `author` (and publication members) itself: leave those keys to it.
      const sent = { content, metadata: without(metadata) };
      const created = await fx.api.call('POST', `${app}/content`, {
        token: fx.token,
        body: { typeId, name: `doc ${i}`, ...sent },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const id = created.body.id as string;
      expect((await fx.api.call('POST', `${app}/content/${id}/publish`, { token: fx.token })).status).toBe(200);
      const answers = {
        'REST create': created.body,
        'REST admin': (await fx.api.call('GET', `${app}/content/${id}`, { token: fx.token })).body,
        'GraphQL admin': (await fx.api.graphql(query(id), {}, { token: fx.token })).body.data.content,
        'REST key': (await fx.api.call('GET', `${api}/content/${id}/resolved`, { apiKey: key })).body,
        'GraphQL key': (await fx.api.graphql(query(id), {}, { apiKey: key })).body.data.content,
      };
      for (const [path, answer] of Object.entries(answers)) {
        const label = `seed=${SEED} #${i} ${path}: ${JSON.stringify(sent)}`;
        expect(answer.content, label).toEqual(asJson(content));
        expect(without(answer.metadata), label).toEqual(asJson(sent.metadata));
      }
    }
  });
});
