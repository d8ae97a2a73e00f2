// Black-box: `include` on content lists, searches and single reads: the entries and assets reachable through
// references, to n hops, each once and none already in `data`, as the caller sees them. The expected includes are
// resolved by hand with single reads of the same caller.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT } from './support/client';
import { newTrace, startOtlpReceiver, statementsOf, type OtlpReceiver } from './support/otlp-receiver';
import { UNLIMITED } from './support/service';
import { useService } from './support/setup';

const RUNS = Number(process.env.FC_RUNS ?? 4);
const SEED = Number(process.env.FC_SEED ?? 20261128);

// A valid 1×1 PNG.
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d4948445200000001000000010806000000' +
    '1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082',
  'hex',
);

type Body = any;
type Auth = { token?: string; apiKey?: string };
/** What an entry's state ends as: never published, published, published then edited (draft only), unpublished. */
type State = 'draft' | 'published' | 'modified' | 'unpublished';
interface Node {
  type: 0 | 1 | 2;
  refs: number[];
  hero: boolean;
  state: State;
  /** The working copy's references after the draft-only edit (`modified`). */
  editedRefs: number[];
}

/** The members an included entry is compared on (list routes leave `compiled` out, as for their `data`). */
const pick = (e: Body) => ({
  id: e.id,
  name: e.name,
  status: e.status,
  version: e.version,
  typeId: e.typeId,
  content: e.content,
});

describe('include: referenced entries and assets beside the answer', () => {
  const fx = useService({ env: UNLIMITED });
  const app = `/app/v1${PROJECT}`;
  const api = `/api/v1${PROJECT}`;
  let types: string[] = [];
  let assets: string[] = [];
  let key = '';
  let previewKey = '';

  const admin = async (method: string, path: string, body?: unknown) => {
    const res = await fx.api.call(method, `${app}${path}`, { token: fx.token, body });
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
    return res.body;
  };
  const get = async (path: string, auth: Auth, body?: unknown) => {
    const res = await fx.api.call(body === undefined ? 'GET' : 'POST', path, { ...auth, body });
    expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
    return res.body;
  };
  const upload = async () => {
    const body = new FormData();
    body.append('file', new Blob([new Uint8Array(PNG)], { type: 'image/png' }), 'hero.png');
    const res = await fetch(`${fx.service.url}${app}/assets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fx.token}` },
      body,
    });
    expect(res.status).toBe(201);
    return ((await res.json()) as { id: string }).id;
  };

  /** The document of an entry of type `type` with these references (type 2 holds none). */
  const documentOf = (type: number, title: string, refs: string[], hero: string | undefined) =>
    type === 0
      ? { title, related: refs, ...(hero ? { hero } : {}) }
      : type === 1
        ? { title, ...(refs[0] ? { next: refs[0] } : {}) }
        : { title };
  /** The references a document holds, in document order (the schema below): entries, then the asset. */
  const refsOf = (doc: Body): { content: string[]; assets: string[] } => ({
    content: [...(doc.related ?? []), ...(doc.next ? [doc.next] : [])],
    assets: doc.hero ? [doc.hero] : [],
  });

  beforeAll(async () => {
    const type = async (name: string, schema: unknown) => {
      const id = (await admin('POST', '/content-types', { name, schema })).id as string;
      await admin('POST', `/content-types/${id}/publish`);
      return id;
    };
    const title = { type: 'string' };
    const a = await type('Page', {
      type: 'object',
      properties: { title, related: { type: 'array', items: { reference: {} } }, hero: { reference: { to: 'asset' } } },
    });
    const b = await type('Author', { type: 'object', properties: { title, next: { reference: {} } } });
    const c = await type('Tag', { type: 'object', properties: { title } });
    types = [a, b, c];
    assets = [await upload(), await upload()];
    key = (await admin('POST', '/api-keys', { name: 'site' })).key;
    previewKey = (await admin('POST', '/api-keys', { name: 'preview', scope: 'preview' })).key;
  });

  /** Builds the graph: every entry created, then its references written, published as its state says. */
  const build = async (nodes: Node[], tag: string) => {
    const ids: string[] = [];
    for (const [i, n] of nodes.entries())
      ids.push(
        (
          await admin('POST', '/content', {
            typeId: types[n.type],
            name: `e${i}`,
            content: { title: 't' },
            tags: [tag],
          })
        ).id,
      );
    const doc = (n: Node, i: number, refs: number[], title: string) =>
      documentOf(
        n.type,
        title,
        refs.filter((r) => r !== i).map((r) => ids[r]),
        n.hero ? assets[i % 2] : undefined,
      );
    for (const [i, n] of nodes.entries())
      await admin('PUT', `/content/${ids[i]}`, { content: doc(n, i, n.refs, `v1 ${i}`) });
    for (const [i, n] of nodes.entries()) if (n.state !== 'draft') await admin('POST', `/content/${ids[i]}/publish`);
    for (const [i, n] of nodes.entries()) {
      if (n.state === 'unpublished') await admin('POST', `/content/${ids[i]}/unpublish`);
      if (n.state === 'modified')
        await admin('PUT', `/content/${ids[i]}`, { content: doc(n, i, n.editedRefs, `v2 ${i}`) });
    }
    return ids;
  };

  /** The includes resolved by hand: breadth first from `roots`, each target read alone by the same caller. */
  const byHand = async (roots: Body[], depth: number, read: (id: string) => Promise<Body | undefined>) => {
    const seen = new Set<string>(roots.map((r) => r.id));
    const content: Body[] = [];
    const found: string[] = [];
    let frontier = roots;
    for (let hop = 0; hop < depth; hop++) {
      const next: Body[] = [];
      for (const entry of frontier) {
        const refs = refsOf(entry.content);
        for (const id of refs.assets) {
          if (seen.has(id)) continue;
          seen.add(id);
          found.push(id);
        }
        for (const id of refs.content) {
          if (seen.has(id)) continue;
          const target = await read(id);
          if (!target) continue;
          seen.add(id);
          content.push(pick(target));
          next.push(target);
        }
      }
      frontier = next;
    }
    const byId = (x: { id: string }, y: { id: string }) => x.id.localeCompare(y.id);
    return { content: content.sort(byId), assets: found.sort() };
  };
  const normalised = (includes: Body) => ({
    content: (includes.content as Body[]).map(pick).sort((x, y) => x.id.localeCompare(y.id)),
    assets: (includes.assets as Body[]).map((a) => a.id).sort(),
  });

  /** One caller's answers (list, search, single reads) with their includes at depth `n`, checked against `byHand`. */
  const checkCaller = async (
    who: 'staff' | 'key' | 'preview',
    tag: string,
    ids: string[],
    n: number,
    limit: number,
  ) => {
    const auth: Auth = who === 'staff' ? { token: fx.token } : { apiKey: who === 'key' ? key : previewKey };
    const base = who === 'staff' ? app : api;
    const single = async (id: string, depth?: number) => {
      const path = who === 'staff' ? `${base}/content/${id}` : `${base}/content/${id}/resolved`;
      const res = await fx.api.call('GET', depth === undefined ? path : `${path}?include=${depth}`, auth);
      if (res.status === 404) return undefined;
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.status === 'deleted' ? undefined : res.body;
    };
    const query = `typeId=${types[0]}&tags=${tag}&limit=${limit}`;
    const list = await get(`${base}/content?${query}&include=${n}`, auth);
    const searchPath = who === 'staff' ? `${base}/content` : `${base}/content/search`;
    const filter = { typeId: { eq: types[0] }, tags: { all: [tag] } };
    const search = await get(searchPath, auth, { filter, limit, ...(n === 0 ? {} : { include: n }) });
    const answers: Body = { list, search, single: {} };
    for (const answer of [list, search]) {
      if (n === 0) {
        expect(answer).not.toHaveProperty('includes');
        continue;
      }
      const expected = await byHand(answer.data, n, (id) => single(id));
      expect(normalised(answer.includes)).toEqual(expected);
      for (const entry of answer.data) expect(entry).not.toHaveProperty('includes');
    }
    for (const id of ids) {
      const entry = await single(id, n);
      answers.single[id] = entry ?? null;
      if (!entry) continue;
      if (n === 0) {
        expect(entry).not.toHaveProperty('includes');
        continue;
      }
      const expected = await byHand([entry], n, (target) => single(target));
      expect(normalised(entry.includes)).toEqual(expected);
      for (const included of entry.includes.content) expect(included).not.toHaveProperty('includes');
    }
    return answers;
  };

  const node = (size: number) =>
    fc.record({
      type: fc.constantFrom(0, 1, 2) as fc.Arbitrary<0 | 1 | 2>,
      refs: fc.array(fc.nat(size - 1), { maxLength: 3 }),
      hero: fc.boolean(),
      state: fc.constantFrom<State>('draft', 'published', 'modified', 'unpublished'),
      editedRefs: fc.array(fc.nat(size - 1), { maxLength: 3 }),
    });
  const graph = fc
    .integer({ min: 3, max: 7 })
    .chain((size) => fc.array(node(size), { minLength: size, maxLength: size }));

  let run = 0;
  it('answers includes equal to resolving references by hand, per caller, on lists, searches and single reads', async () => {
    await fc.assert(
      fc.asyncProperty(graph, fc.integer({ min: 0, max: 3 }), async (nodes, n) => {
        const tag = `run-${run++}`;
        const ids = await build(nodes, tag);
        for (const who of ['staff', 'preview'] as const) await checkCaller(who, tag, ids, n, 100);
        const before = await checkCaller('key', tag, ids, n, 100);
        // Draft-only edits of targets and of the linking properties never change what an API key is answered.
        // (Not of unpublished entries: the spec's state table makes an edit of one `modified`, which puts its last
        // published version back in front of API keys.)
        for (const [i, id] of ids.entries()) {
          if (nodes[i].state === 'unpublished') continue;
          const edited = documentOf(nodes[i].type, 'edited', [...ids].reverse().slice(0, 2), undefined);
          await admin('PUT', `/content/${id}`, { content: edited });
        }
        // Another limit: another URL, so the read cache can't answer from before the edits.
        const after = await checkCaller('key', tag, ids, n, 99);
        expect(after.list.includes).toEqual(before.list.includes);
        expect(after.list.data).toEqual(before.list.data);
        expect(after.search.includes).toEqual(before.search.includes);
        expect(after.single).toEqual(before.single);
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it('never includes a deleted entry (a restored draft keeps its link to an entry deleted since)', async () => {
    const target = (await admin('POST', '/content', { typeId: types[2], name: 'gone', content: { title: 'x' } })).id;
    const kept = (await admin('POST', '/content', { typeId: types[2], name: 'kept', content: { title: 'y' } })).id;
    const draft = (
      await admin('POST', '/content', {
        typeId: types[0],
        name: 'draft',
        content: { title: 'd', related: [target, kept] },
      })
    ).id;
    await admin('DELETE', `/content/${draft}`);
    await admin('DELETE', `/content/${target}`);
    await admin('POST', `/content/${draft}/restore`);
    const answer = await get(`${app}/content/${draft}?include=1`, { token: fx.token });
    expect(answer.includes.content.map((e: Body) => e.id)).toEqual([kept]);
    expect(answer.includes.assets).toEqual([]);
  });

  it('refuses include outside 0–3 or not an integer: 400 naming the parameter', async () => {
    const id = (await admin('POST', '/content', { typeId: types[2], name: 'any', content: { title: 'x' } })).id;
    await admin('POST', `/content/${id}/publish`);
    const paths = [
      [`${app}/content`, { token: fx.token }],
      [`${app}/content/${id}`, { token: fx.token }],
      [`${api}/content`, { apiKey: key }],
      [`${api}/content/${id}/resolved`, { apiKey: key }],
    ] as const;
    for (const [path, auth] of paths) {
      for (const value of ['4', '-1', 'x', '1.5']) {
        const res = await fx.api.call('GET', `${path}?include=${value}`, auth);
        expect(res.status, `${path}?include=${value}`).toBe(400);
        expect(res.body.error.code).toBe('BAD_REQUEST');
        expect(res.body.error.details.parameter).toBe('include');
      }
    }
    for (const [path, auth] of [
      [`${app}/content`, { token: fx.token }],
      [`${api}/content/search`, { apiKey: key }],
    ] as const) {
      for (const include of [4, -1, 'x', 1.5]) {
        const res = await fx.api.call('POST', path, { ...auth, body: { filter: {}, include } });
        expect(res.status, `${path} include ${include}`).toBe(400);
        expect(res.body.error.details.parameter).toBe('include');
      }
    }
  });

  it('answers GraphQL the same through the `include` argument', async () => {
    const author = (await admin('POST', '/content', { typeId: types[1], name: 'Ada', content: { title: 'Ada' } })).id;
    const page = (
      await admin('POST', '/content', {
        typeId: types[0],
        name: 'launch',
        content: { title: 'Launch', related: [author], hero: assets[0] },
      })
    ).id;
    const res = await fx.api.call('POST', '/graphql', {
      token: fx.token,
      body: {
        query: `{ content(organizationId: "default", projectId: "default", id: "${page}", include: 1) {
          id includes { content { id name } assets { id } } } }`,
      },
    });
    expect(res.body).toEqual({
      data: {
        content: {
          id: page,
          includes: { content: [{ id: author, name: 'Ada' }], assets: [{ id: assets[0] }] },
        },
      },
    });
    const without = await fx.api.call('POST', '/graphql', {
      token: fx.token,
      body: {
        query: `{ content(organizationId: "default", projectId: "default", id: "${page}") { includes { assets { id } } } }`,
      },
    });
    expect(without.body).toEqual({ data: { content: { includes: null } } });
  });
});

describe('include: statements per request', () => {
  const env: Record<string, string> = { ...UNLIMITED, OTEL_BSP_SCHEDULE_DELAY: '50' };
  let receiver: OtlpReceiver;
  // Before the service starts: it exports its spans (the database's statements among them) here.
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url;
  });
  afterAll(() => receiver?.close());
  const fx = useService({ env });
  const app = `/app/v1${PROJECT}`;

  const admin = async (method: string, path: string, body?: unknown) => {
    const res = await fx.api.call(method, `${app}${path}`, { token: fx.token, body });
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
    return res.body;
  };
  /** The database statements one request ran (its trace's PostgreSQL query spans). */
  const statements = async (path: string) => {
    const { traceId, traceparent } = newTrace();
    const res = await fx.api.call('GET', path, { token: fx.token, headers: { traceparent } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return { count: await statementsOf(receiver, traceId), body: res.body };
  };

  it('runs as many statements for a page of 20 as for a page of 2 (per hop: links, entries, assets)', async () => {
    const type = async (name: string, schema: unknown) => {
      const id = (await admin('POST', '/content-types', { name, schema })).id as string;
      await admin('POST', `/content-types/${id}/publish`);
      return id;
    };
    const title = { type: 'string' };
    const tagType = await type('Tag', { type: 'object', properties: { title } });
    const authorType = await type('Author', {
      type: 'object',
      properties: { title, tags: { type: 'array', items: { reference: {} } } },
    });
    const pageType = await type('Page', {
      type: 'object',
      properties: { title, authors: { type: 'array', items: { reference: {} } } },
    });
    for (let i = 0; i < 20; i++) {
      const tag = (await admin('POST', '/content', { typeId: tagType, name: `t${i}`, content: { title: 't' } })).id;
      const authors: string[] = [];
      for (let j = 0; j < 2; j++)
        authors.push(
          (await admin('POST', '/content', { typeId: authorType, name: `a${i}.${j}`, content: { tags: [tag] } })).id,
        );
      await admin('POST', '/content', { typeId: pageType, name: `p${i}`, content: { authors } });
    }
    const list = (limit: number) => statements(`${app}/content?typeId=${pageType}&limit=${limit}&include=2`);
    // The first request of a shape warms caches (type versions, query shapes): not counted.
    await list(4);
    // Two pages of each size, each counted once (an admin's repeated URL would be a stored answer): the fewer of the
    // two, as a principal cache refreshed in the background can add a statement to either request.
    const [small, small3, large, large19] = [await list(2), await list(3), await list(20), await list(19)];
    expect(small.body.includes.content).toHaveLength(2 * 2 + 2);
    expect(large.body.includes.content).toHaveLength(20 * 2 + 20);
    const smallCount = Math.min(small.count, small3.count);
    const largeCount = Math.min(large.count, large19.count);
    // The list, then per hop its links and its entries (no assets here): more than that would grow with the page.
    expect(smallCount, `statements: ${smallCount}`).toBeGreaterThanOrEqual(5);
    expect(largeCount).toBe(smallCount);
  });
});
