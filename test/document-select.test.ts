// Black-box: `select` answers only the entry fields and `content.<path>`s named (`id` always), on REST lists, single
// reads and search bodies of both families, and prunes `content` in GraphQL; an answer with `select` is the answer
// without it, projected. Unknown fields and paths the selected type's schema does not declare are 400 naming `select`.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { PROJECT } from './support/client';
import { UNLIMITED } from './support/service';
import { useService } from './support/setup';

const RUNS = Number(process.env.FC_RUNS ?? 30);
const SEED = Number(process.env.FC_SEED ?? 20261128);

const SCHEMA = {
  type: 'object',
  properties: {
    slug: { type: 'string' },
    price: { type: 'number' },
    featured: { type: 'boolean' },
    author: { type: 'object', properties: { name: { type: 'string' }, bio: { type: 'string' } } },
    gallery: { type: 'array', items: { type: 'object', properties: { url: { type: 'string' } } } },
  },
};
/** Every `content.<path>` the schema declares (not into the array), and the whole document. */
const PATHS = ['content', 'content.slug', 'content.price', 'content.featured', 'content.author', 'content.author.name'];
const ALL_PATHS = [...PATHS, 'content.author.bio', 'content.gallery'];

/** Random documents of the type: any property may be missing. */
const documentArb = fc.record(
  {
    slug: fc.string({ maxLength: 8 }),
    price: fc.integer({ min: 0, max: 1000 }),
    featured: fc.boolean(),
    author: fc.record({ name: fc.string({ maxLength: 6 }), bio: fc.string({ maxLength: 6 }) }, { requiredKeys: [] }),
    gallery: fc.array(fc.record({ url: fc.webUrl() }), { maxLength: 2 }),
  },
  { requiredKeys: [] },
);

type Entry = Record<string, unknown> & { id: string; content?: Record<string, unknown> };

/** The answer's entry projected by hand: `id`, the fields named, `content` pruned to the paths (whole if named). */
function project(entry: Entry, names: readonly string[]): Entry {
  const out: Entry = { id: entry.id };
  const paths = names.filter((n) => n.startsWith('content.')).map((n) => n.slice('content.'.length).split('.'));
  for (const name of names)
    if (name !== 'content' && !name.startsWith('content.') && name in entry) out[name] = entry[name];
  if (names.includes('content')) out.content = entry.content;
  else if (paths.length) out.content = prune(entry.content ?? {}, paths);
  return out;
}

/** The document with only the paths (shortest first; a longer path under a kept one changes nothing). */
function prune(document: Record<string, unknown>, paths: string[][]): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const path of [...paths].sort((a, b) => a.length - b.length)) {
    let value: unknown = document;
    for (const key of path)
      value =
        value && typeof value === 'object' && !Array.isArray(value)
          ? (value as Record<string, unknown>)[key]
          : undefined;
    if (value === undefined) continue;
    let target = result;
    for (const key of path.slice(0, -1)) target = (target[key] ??= {}) as Record<string, unknown>;
    target[path.at(-1)!] = structuredClone(value);
  }
  return result;
}

describe('select: the entry fields and document paths an answer keeps', () => {
  const fx = useService({ env: UNLIMITED });
  const app = `/app/v1${PROJECT}`;
  const api = `/api/v1${PROJECT}`;
  let typeId = '';
  let key = '';
  const ids: string[] = [];
  const admin = async (method: string, path: string, body?: unknown) => {
    const res = await fx.api.call(method, `${app}${path}`, { token: fx.token, body });
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
    return res.body;
  };
  const as = (family: 'app' | 'api') => (family === 'app' ? { token: fx.token } : { apiKey: key });
  const call = (family: 'app' | 'api', method: string, path: string, body?: unknown) =>
    fx.api.call(method, `${family === 'app' ? app : api}${path}`, { ...as(family), body });
  const ok = (res: { status: number; body: any }) => {
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  };

  beforeAll(async () => {
    typeId = (await admin('POST', '/content-types', { name: 'Article', schema: SCHEMA })).id;
    await admin('POST', `/content-types/${typeId}/publish`);
    const documents = fc.sample(documentArb, { seed: SEED, numRuns: 6 });
    for (const [i, content] of documents.entries()) {
      const id = (await admin('POST', '/content', { typeId, name: `Article ${i}`, content, tags: [`t${i % 2}`] })).id;
      ids.push(id);
      await admin('POST', `/content/${id}/publish`);
      // Every other entry has a draft edit: staff answer it, keys the published document.
      if (i % 2) await admin('PUT', `/content/${id}`, { content: { ...content, slug: `draft-${i}` } });
    }
    key = (await admin('POST', '/api-keys', { name: 'site' })).key;
  });

  /** A REST read of either family, with or without `select`. */
  type Read = { family: 'app' | 'api'; kind: 'list' | 'listAll' | 'single' | 'search'; index: number };
  const read = async ({ family, kind, index }: Read, select?: string[]) => {
    const q = select ? `select=${encodeURIComponent(select.join(','))}` : '';
    switch (kind) {
      case 'list':
        return call(family, 'GET', `/content?typeId=${typeId}&limit=100${q && `&${q}`}`);
      case 'listAll':
        // No type selected: any well-formed path is answered.
        return call(family, 'GET', `/content?limit=100${q && `&${q}`}`);
      case 'single':
        return call(family, 'GET', `/content/${ids[index]}${family === 'api' ? '/resolved' : ''}${q && `?${q}`}`);
      case 'search':
        return call(family, 'POST', '/content/search', {
          filter: { typeId: { eq: typeId } },
          limit: 100,
          ...(select && { select }),
        });
    }
  };
  const readArb = fc.record({
    family: fc.constantFrom<'app' | 'api'>('app', 'api'),
    kind: fc.constantFrom<Read['kind']>('list', 'listAll', 'single', 'search'),
    index: fc.nat({ max: 5 }),
  });

  it('answers what the same read answers without select, projected: id, the fields named, content pruned', async () => {
    // The entry fields each read answers (its keys without select), per route.
    const fieldsOf = new Map<string, string[]>();
    for (const family of ['app', 'api'] as const)
      for (const kind of ['list', 'single'] as const) {
        const body = ok(await read({ family, kind, index: 0 }));
        fieldsOf.set(`${family}:${kind}`, Object.keys(kind === 'single' ? body : body.data[0]));
      }
    await fc.assert(
      fc.asyncProperty(readArb, fc.nat({ max: 2 ** 24 }), fc.subarray(ALL_PATHS), async (r, mask, paths) => {
        const fields = fieldsOf.get(`${r.family}:${r.kind === 'single' ? 'single' : 'list'}`)!;
        // Some of the route's entry fields (a random bit mask), then the paths, interleaved.
        const chosen = fields.filter((_, i) => (mask >> i) & 1);
        const select = [...paths, ...chosen].sort((a, b) => ((mask ^ a.length) & 3) - ((mask ^ b.length) & 3));
        const plain = ok(await read(r));
        const selected = ok(await read(r, select));
        if (r.kind === 'single') {
          expect(selected).toEqual(project(plain, select));
        } else {
          expect(selected.data).toEqual(plain.data.map((e: Entry) => project(e, select)));
          expect(selected.pagination).toEqual(plain.pagination);
        }
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it('prunes content in GraphQL contents, searchContent and content to the named paths', async () => {
    const graphql = async (family: 'app' | 'api', query: string, variables: Record<string, unknown>) => {
      const res = await fx.api.call('POST', '/graphql', { ...as(family), body: { query, variables } });
      expect(res.body.errors, JSON.stringify(res.body)).toBeUndefined();
      return res.body.data;
    };
    const scope = 'organizationId: "default", projectId: "default"';
    const lists = `query($typeId: ID, $select: [String!]) {
      contents(${scope}, typeId: $typeId, limit: 100, select: $select) { data { id name content } }
      searchContent(${scope}, input: { filter: { typeId: { eq: $typeId } }, limit: 100, select: $select }) { data { id name content } }
    }`;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<'app' | 'api'>('app', 'api'),
        fc.subarray([...ALL_PATHS, 'name', 'status']),
        fc.nat({ max: 5 }),
        async (family, select, index) => {
          const plain = await graphql(family, lists, { typeId });
          const selected = await graphql(family, lists, { typeId, select });
          for (const field of ['contents', 'searchContent'])
            expect(selected[field].data).toEqual(
              plain[field].data.map((e: Entry) =>
                select.includes('content') ? e : { ...e, content: prune(e.content ?? {}, pathsOf(select)) },
              ),
            );
          if (family === 'app') {
            const one = `query($id: ID!, $select: [String!]) { content(${scope}, id: $id, select: $select) { id content } }`;
            const a = await graphql(family, one, { id: ids[index] });
            const b = await graphql(family, one, { id: ids[index], select });
            expect(b.content).toEqual(
              select.includes('content')
                ? a.content
                : { ...a.content, content: prune(a.content.content, pathsOf(select)) },
            );
          }
        },
      ),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it('keeps a nested path at its nesting, and answers only id when nothing is selected', async () => {
    const body = ok(await call('app', 'GET', `/content?typeId=${typeId}&limit=100&select=name,content.author.name`));
    for (const entry of body.data as Entry[]) {
      expect(Object.keys(entry).sort()).toEqual(['content', 'id', 'name']);
      expect(Object.keys(entry.content!)).toEqual(Object.keys(entry.content!).filter((k) => k === 'author'));
      if (entry.content!.author) expect(Object.keys(entry.content!.author)).toEqual(['name']);
    }
    const bare = ok(await call('api', 'POST', '/content/search', { select: [] }));
    for (const entry of bare.data as Entry[]) expect(Object.keys(entry)).toEqual(['id']);
  });

  it('leaves includes whole', async () => {
    const res = ok(await call('app', 'GET', `/content/${ids[0]}?include=1&select=name`));
    expect(Object.keys(res).sort()).toEqual(['id', 'includes', 'name']);
  });

  it('refuses unknown fields and undeclared paths: 400 naming select and the field', async () => {
    const refusals: [family: 'app' | 'api', method: string, path: string, body: unknown, field: string][] = [
      ['app', 'GET', `/content?select=name,nope`, undefined, 'nope'],
      ['api', 'GET', `/content?select=references`, undefined, 'references'],
      ['api', 'GET', `/content?select=compiled`, undefined, 'compiled'],
      ['app', 'GET', `/content?typeId=${typeId}&select=content.nope`, undefined, 'content.nope'],
      ['api', 'GET', `/content?typeId=${typeId}&select=content.gallery.url`, undefined, 'content.gallery.url'],
      ['api', 'GET', `/content?select=content..slug`, undefined, 'content..slug'],
      ['app', 'GET', `/content/${'x'.repeat(8)}?select=nope`, undefined, 'nope'],
      ['api', 'GET', `/content/${'x'.repeat(8)}/resolved?select=includes`, undefined, 'includes'],
      ['app', 'POST', '/content/search', { select: ['nope'] }, 'nope'],
      [
        'app',
        'POST',
        '/content',
        { filter: { typeId: { eq: typeId } }, select: ['content.author.nope'] },
        'content.author.nope',
      ],
      ['api', 'POST', '/content/search', { filter: { typeId: { eq: typeId } }, select: ['content.x'] }, 'content.x'],
    ];
    for (const [family, method, path, body, field] of refusals) {
      const res = await call(family, method, path, body);
      expect({ path, body, status: res.status, code: res.body.error?.code, details: res.body.error?.details }).toEqual({
        path,
        body,
        status: 400,
        code: 'BAD_REQUEST',
        details: expect.objectContaining({ parameter: 'select', field }),
      });
    }
    const mistyped = await call('api', 'POST', '/content/search', { select: 'name' });
    expect([mistyped.status, mistyped.body.error?.details?.parameter]).toEqual([400, 'select']);
    const gql = await fx.api.call('POST', '/graphql', {
      apiKey: key,
      body: {
        query: `{ contents(organizationId: "default", projectId: "default", typeId: "${typeId}", select: ["content.nope"]) { data { id } } }`,
      },
    });
    expect(gql.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_REQUEST', details: { parameter: 'select' } });
  });
});

function pathsOf(select: readonly string[]): string[][] {
  return select.filter((n) => n.startsWith('content.')).map((n) => n.slice('content.'.length).split('.'));
}
