// Black-box: a project's typed GraphQL endpoint answers the same entries, fields and order as the equivalent REST list
// (document filters, sort, include), for API keys and preview keys; it follows the model as types are published; refusals
// carry `errors[].extensions.code`.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT } from './support/client';
import { newTrace, startOtlpReceiver, statementsOf, type OtlpReceiver } from './support/otlp-receiver';
import { UNLIMITED } from './support/service';
import { useService } from './support/setup';

const RUNS = Number(process.env.FC_RUNS ?? 25);
const SEED = Number(process.env.FC_SEED ?? 20261128);

// A valid 1×1 PNG.
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d4948445200000001000000010806000000' +
    '1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082',
  'hex',
);

type Body = any;
const WORDS = ['alpha', 'beta', 'gamma', 'delta'];
const word = fc.constantFrom(...WORDS);

const ARTICLE_SCHEMA = {
  type: 'object',
  properties: {
    title: { type: 'string' },
    price: { type: 'integer' },
    rating: { type: 'number' },
    featured: { type: 'boolean' },
    author: { reference: { typeIds: [] as string[] } },
    hero: { reference: { to: 'asset' } },
    keywords: { type: 'array', items: { type: 'string' } },
  },
};

/** One document filter condition per property, as a REST query parameter and as the typed filter's member. */
const condition = fc.oneof(
  word.map((v) => ({ field: 'title', op: 'eq', value: v })),
  fc.subarray(WORDS, { minLength: 1 }).map((v) => ({ field: 'title', op: 'in', value: v })),
  fc.constantFrom('a', 'et', 'mm').map((v) => ({ field: 'title', op: 'like', value: v })),
  word.map((v) => ({ field: 'title', op: 'gte', value: v })),
  fc.integer({ min: 0, max: 9 }).map((v) => ({ field: 'price', op: 'gt', value: v })),
  fc.integer({ min: 0, max: 9 }).map((v) => ({ field: 'price', op: 'lte', value: v })),
  fc.integer({ min: 0, max: 9 }).map((v) => ({ field: 'price', op: 'neq', value: v })),
  fc.double({ min: 0, max: 5, noNaN: true }).map((v) => ({ field: 'rating', op: 'lt', value: v })),
  fc.boolean().map((v) => ({ field: 'featured', op: 'eq', value: v })),
  fc.boolean().map((v) => ({ field: 'author', op: 'exists', value: v })),
  fc.boolean().map((v) => ({ field: 'hero', op: 'exists', value: v })),
);
const query = fc.record({
  conditions: fc.uniqueArray(condition, { maxLength: 3, selector: (c) => `${c.field}.${c.op}` }),
  sort: fc.option(
    fc.record({
      field: fc.constantFrom('title', 'price', 'rating', 'updatedAt'),
      direction: fc.constantFrom('asc', 'desc'),
    }),
    { nil: undefined },
  ),
  limit: fc.integer({ min: 1, max: 12 }),
});

describe('typed GraphQL per project', () => {
  const fx = useService({ env: UNLIMITED });
  const app = `/app/v1${PROJECT}`;
  const api = `/api/v1${PROJECT}`;
  let articleType = '';
  let authorType = '';
  let key = '';
  let previewKey = '';

  const admin = async (method: string, path: string, body?: unknown) => {
    const res = await fx.api.call(method, `${app}${path}`, { token: fx.token, body });
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
    return res.body;
  };
  const typed = (apiKey: string, source: string, variables?: unknown) =>
    fx.api.call('POST', `${api}/graphql`, { apiKey, body: { query: source, variables } });
  const upload = async () => {
    const body = new FormData();
    body.append('file', new Blob([new Uint8Array(PNG)], { type: 'image/png' }), 'hero.png');
    const res = await fetch(`${fx.service.url}${app}/assets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fx.token}` },
      body,
    });
    return ((await res.json()) as { id: string }).id;
  };
  const type = async (name: string, schema: unknown) => {
    const id = (await admin('POST', '/content-types', { name, schema })).id as string;
    await admin('POST', `/content-types/${id}/publish`);
    return id;
  };

  beforeAll(async () => {
    authorType = await type('Author', { type: 'object', properties: { fullName: { type: 'string' } } });
    ARTICLE_SCHEMA.properties.author.reference.typeIds = [authorType];
    articleType = await type('Article', ARTICLE_SCHEMA);
    const hero = await upload();
    const authors: string[] = [];
    for (const [i, state] of ['published', 'published', 'draft', 'unpublished'].entries()) {
      const id = (
        await admin('POST', '/content', { typeId: authorType, name: `a${i}`, content: { fullName: `Author ${i}` } })
      ).id;
      if (state !== 'draft') await admin('POST', `/content/${id}/publish`);
      if (state === 'unpublished') await admin('POST', `/content/${id}/unpublish`);
      authors.push(id);
    }
    // Entries over every state: published, published then edited, draft; values repeat so sorts have ties.
    const rnd = fc.sample(
      fc.record({
        title: word,
        price: fc.integer({ min: 0, max: 9 }),
        rating: fc.constantFrom(1.5, 2.25, 4),
        featured: fc.boolean(),
        author: fc.option(fc.nat(3), { nil: undefined }),
        hero: fc.boolean(),
        state: fc.constantFrom('published', 'published', 'modified', 'draft'),
      }),
      { numRuns: 24, seed: SEED },
    );
    for (const [i, e] of rnd.entries()) {
      const content = {
        title: e.title,
        price: e.price,
        rating: e.rating,
        featured: e.featured,
        keywords: [e.title, 'x'],
        ...(e.author !== undefined ? { author: authors[e.author] } : {}),
        ...(e.hero ? { hero } : {}),
      };
      const id = (await admin('POST', '/content', { typeId: articleType, name: `e${i}`, content })).id;
      if (e.state !== 'draft') await admin('POST', `/content/${id}/publish`);
      if (e.state === 'modified') await admin('PUT', `/content/${id}`, { content: { ...content, price: 9 - e.price } });
    }
    key = (await admin('POST', '/api-keys', { name: 'site' })).key;
    previewKey = (await admin('POST', '/api-keys', { name: 'preview', scope: 'preview' })).key;
  });

  it('answers what the REST list with the same filters, sort and include=1 answers, for keys and preview keys', async () => {
    const FIELDS =
      'items { sys { id typeId version } name title price rating featured keywords author { sys { id } fullName } hero { id url } }';
    await fc.assert(
      fc.asyncProperty(query, fc.constantFrom('key', 'preview'), async (q, who) => {
        const apiKey = who === 'key' ? key : previewKey;
        const params = new URLSearchParams({ typeId: articleType, limit: String(q.limit), include: '1' });
        const where: Record<string, Record<string, unknown>> = {};
        for (const c of q.conditions) {
          params.set(`content.${c.field}[${c.op}]`, Array.isArray(c.value) ? c.value.join(',') : String(c.value));
          (where[c.field] ??= {})[c.op] = c.value;
        }
        if (q.sort)
          params.set(
            'sort',
            `${q.sort.field === 'updatedAt' ? 'updatedAt' : `content.${q.sort.field}`}:${q.sort.direction}`,
          );
        const order = q.sort && [
          `${q.sort.field === 'updatedAt' ? 'sys_updatedAt' : q.sort.field}_${q.sort.direction.toUpperCase()}`,
        ];
        const rest = await fx.api.call('GET', `${api}/content?${params}`, { apiKey });
        expect(rest.status, JSON.stringify(rest.body)).toBe(200);
        const answer = await typed(
          apiKey,
          `query($where: ArticleFilter, $order: [ArticleOrder!], $limit: Int) { articleCollection(where: $where, order: $order, limit: $limit) { limit skip ${FIELDS} } }`,
          { where, order, limit: q.limit },
        );
        expect(answer.status, JSON.stringify(answer.body)).toBe(200);
        expect(answer.body.errors).toBeUndefined();
        const items: Body[] = answer.body.data.articleCollection.items;
        const included = new Map<string, Body>((rest.body.includes?.content ?? []).map((e: Body) => [e.id, e]));
        const expected = rest.body.data.map((e: Body) => {
          const author = e.content.author && included.get(e.content.author);
          return {
            sys: { id: e.id, typeId: articleType, version: e.version },
            name: e.name,
            title: e.content.title,
            price: e.content.price,
            rating: e.content.rating,
            featured: e.content.featured,
            keywords: e.content.keywords,
            author: author ? { sys: { id: author.id }, fullName: author.content.fullName } : null,
            hero: e.content.hero
              ? { id: e.content.hero, url: expect.stringContaining(`/assets/${e.content.hero}/`) }
              : null,
          };
        });
        expect(items).toEqual(expected);
      }),
      { numRuns: RUNS, seed: SEED },
    );
  }, 300_000);

  it('combines filters with AND and OR as the union and intersection of the REST lists', async () => {
    const ids = async (params: string) =>
      (
        (await fx.api.call('GET', `${api}/content?typeId=${articleType}&limit=100&${params}`, { apiKey: key })).body
          .data as Body[]
      )
        .map((e) => e.id)
        .sort();
    const cheap = await ids('content.price[lte]=3');
    const featured = await ids('content.featured=true');
    const run = async (where: unknown) =>
      (
        await typed(
          key,
          `query($w: ArticleFilter) { articleCollection(where: $w, limit: 100) { total items { sys { id } } } }`,
          { w: where },
        )
      ).body.data.articleCollection as Body;
    const or = await run({ OR: [{ price: { lte: 3 } }, { featured: { eq: true } }] });
    expect(or.items.map((e: Body) => e.sys.id).sort()).toEqual([...new Set([...cheap, ...featured])].sort());
    expect(or.total).toBe(or.items.length);
    const and = await run({ AND: [{ price: { lte: 3 } }, { featured: { eq: true } }] });
    expect(and.items.map((e: Body) => e.sys.id).sort()).toEqual(cheap.filter((id) => featured.includes(id)));
    expect((await run({ OR: [] })).items).toEqual([]);
  });

  it('pages with skip and limit over a stable order, and counts the total', async () => {
    const all = await typed(
      key,
      '{ articleCollection(limit: 100, order: [price_ASC, title_DESC]) { total items { sys { id } } } }',
    );
    const every = all.body.data.articleCollection;
    expect(every.total).toBe(every.items.length);
    const pages: string[] = [];
    for (let skip = 0; skip < every.total; skip += 5) {
      const page = await typed(
        key,
        `{ articleCollection(limit: 5, skip: ${skip}, order: [price_ASC, title_DESC]) { total items { sys { id } } } }`,
      );
      expect(page.body.data.articleCollection.total).toBe(every.total);
      pages.push(...page.body.data.articleCollection.items.map((e: Body) => e.sys.id));
    }
    expect(pages).toEqual(every.items.map((e: Body) => e.sys.id));
  });

  it('serves the SDL, and follows the model when a type is published, unpublished or deleted', async () => {
    const sdl = async () => (await fx.api.call('GET', `${api}/graphql/schema.graphql`, { apiKey: key })).body as string;
    expect(await sdl()).toContain('articleCollection(');
    const id = await type('Event Day', { type: 'object', properties: { when: { type: 'string' } } });
    const eventually = async (expectation: (sdl: string) => boolean) => {
      const deadline = Date.now() + 10_000;
      while (!expectation(await sdl()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(expectation(await sdl())).toBe(true);
    };
    await eventually((s) => s.includes('type EventDay implements Entry'));
    const answer = await typed(key, '{ eventDayCollection { total items { when } } }');
    expect(answer.body).toEqual({ data: { eventDayCollection: { total: 0, items: [] } } });
    await admin('POST', `/content-types/${id}/unpublish`);
    await eventually((s) => !s.includes('EventDay'));
  });

  it('answers published keys from the read cache until the project changes; preview keys never', async () => {
    const path = `${api}/graphql?query=${encodeURIComponent('{ authorCollection { total } }')}`;
    await fx.api.call('GET', path, { apiKey: key });
    const hit = await fx.api.call('GET', path, { apiKey: key });
    expect(hit.headers.get('x-cache')).toBe('HIT');
    const total = hit.body.data.authorCollection.total as number;
    const preview = await fx.api.call('GET', path, { apiKey: previewKey });
    expect(preview.headers.get('x-cache')).not.toBe('HIT');
    const id = (await admin('POST', '/content', { typeId: authorType, name: 'new', content: { fullName: 'New' } })).id;
    await admin('POST', `/content/${id}/publish`);
    const after = await fx.api.call('GET', path, { apiKey: key });
    expect(after.body.data.authorCollection.total).toBe(total + 1);
  });

  it('refuses bad requests with a code in errors[].extensions, and other projects’ keys', async () => {
    const code = (res: Body) => res.body.errors?.[0]?.extensions?.code;
    const tooMany = await typed(key, '{ articleCollection(limit: 500) { total } }');
    expect(code(tooMany)).toBe('BAD_REQUEST');
    const unknown = await typed(key, '{ articleCollection { items { nope } } }');
    expect([unknown.status, code(unknown)]).toEqual([400, 'BAD_REQUEST']);
    const badFilter = await typed(key, '{ articleCollection(where: { title: { gt: 3 } }) { total } }');
    expect([badFilter.status, code(badFilter)]).toEqual([400, 'BAD_REQUEST']);
    const deep = await typed(
      key,
      '{ articleCollection { items { author { ... on Author { sys { id } } } } } a1: articleCollection { total } a2: articleCollection { total } a3: articleCollection { total } a4: articleCollection { total } a5: articleCollection { total } a6: articleCollection { total } a7: articleCollection { total } a8: articleCollection { total } a9: articleCollection { total } a10: articleCollection { total } a11: articleCollection { total } a12: articleCollection { total } a13: articleCollection { total } a14: articleCollection { total } a15: articleCollection { total } a16: articleCollection { total } }',
    );
    expect(code(deep)).toBe('BAD_REQUEST');
    const none = await fx.api.call('POST', `${api}/graphql`, { body: { query: '{ __typename }' } });
    expect([none.status, code(none)]).toEqual([401, 'UNAUTHORIZED']);
    const other = await fx.api.call('POST', `/api/v1/organizations/default/projects/elsewhere/graphql`, {
      apiKey: key,
      body: { query: '{ __typename }' },
    });
    expect([other.status, code(other)]).toEqual([404, 'NOT_FOUND']);
  });
});

describe('typed GraphQL: statements per request', () => {
  const env: Record<string, string> = { ...UNLIMITED, OTEL_BSP_SCHEDULE_DELAY: '50', CACHE: 'off' };
  let receiver: OtlpReceiver;
  // Before the service starts: it exports its spans (the database's statements among them) here.
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url;
  });
  afterAll(() => receiver?.close());
  const fx = useService({ env });
  const app = `/app/v1${PROJECT}`;
  const api = `/api/v1${PROJECT}`;

  const admin = async (method: string, path: string, body?: unknown) => {
    const res = await fx.api.call(method, `${app}${path}`, { token: fx.token, body });
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
    return res.body;
  };
  /** The database statements one typed query ran (its trace's PostgreSQL query spans). */
  const statements = async (apiKey: string, query: string) => {
    const { traceId, traceparent } = newTrace();
    const res = await fx.api.call('POST', `${api}/graphql`, { apiKey, body: { query }, headers: { traceparent } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.errors).toBeUndefined();
    return { count: await statementsOf(receiver, traceId), body: res.body };
  };

  it('runs as many statements for 20 items as for 2, two levels of references deep', async () => {
    const type = async (name: string, schema: unknown) => {
      const id = (await admin('POST', '/content-types', { name, schema })).id as string;
      await admin('POST', `/content-types/${id}/publish`);
      return id;
    };
    const tagType = await type('Tag', { type: 'object', properties: { label: { type: 'string' } } });
    const authorType = await type('Author', {
      type: 'object',
      properties: { tags: { type: 'array', items: { reference: { typeIds: [tagType] } } } },
    });
    const pageType = await type('Page', {
      type: 'object',
      properties: { title: { type: 'string' }, authors: { type: 'array', items: { reference: {} } } },
    });
    const publish = async (typeId: string, name: string, content: unknown) => {
      const id = (await admin('POST', '/content', { typeId, name, content })).id as string;
      await admin('POST', `/content/${id}/publish`);
      return id;
    };
    for (let i = 0; i < 20; i++) {
      const tag = await publish(tagType, `t${i}`, { label: `tag ${i}` });
      const authors = [await publish(authorType, `a${i}`, { tags: [tag] }), await publish(authorType, `b${i}`, {})];
      await publish(pageType, `p${i}`, { title: `page ${i}`, authors });
    }
    const key = (await admin('POST', '/api-keys', { name: 'site' })).key as string;
    const page = (limit: number) =>
      statements(
        key,
        `{ pageCollection(limit: ${limit}) { items { title authors { sys { id } ... on Author { tags { label } } } } } }`,
      );
    // The first request builds the project's schema and warms caches: not counted.
    await page(4);
    // Two pages of each size, each counted once (a repeated query would be a stored answer): the fewer of the two, as
    // a cache standing aside for an announced event (the principal's, the project's) adds a statement to a request.
    const [small, small3, large, large19] = [await page(2), await page(3), await page(20), await page(19)];
    expect(large.body.data.pageCollection.items).toHaveLength(20);
    expect(large.body.data.pageCollection.items[0].authors[0].tags[0].label).toMatch(/^tag /);
    const smallCount = Math.min(small.count, small3.count);
    const largeCount = Math.min(large.count, large19.count);
    // The page, then one statement per level of references (authors, then tags).
    expect(smallCount, `statements: ${smallCount}`).toBeGreaterThanOrEqual(3);
    expect(largeCount).toBe(smallCount);
  });
});
