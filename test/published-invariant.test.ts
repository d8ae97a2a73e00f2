// Black-box property: an API key's answers (REST, /graphql and the typed endpoint) depend on the published state only;
// draft edits never change them, in any locale.
import fc from 'fast-check';
import { Client as Pg } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UNLIMITED } from './support/service';
import { useService } from './support/setup';

const RUNS = Number(process.env.FC_RUNS ?? 4);
const SEED = Number(process.env.FC_SEED ?? 20261125);
const WORDS = ['harvest', 'zorblax', 'embargo', 'meadow', 'copper', 'quarterly', 'report', 'lantern'];
const TAGS = ['public', 'secret', 'news'];
/** Tag names draft edits may add: one no published entry ever carries. */
const DRAFT_TAGS = [...TAGS, 'unannounced'];
const ORG = '/organizations/default';

const word = fc.constantFrom(...WORDS);
const words = (min: number, max: number) => fc.array(word, { minLength: min, maxLength: max }).map((w) => w.join(' '));
const tags = fc.subarray(TAGS);
const SLUGS = ['launch', 'about', 'pricing'];
const slug = fc.constantFrom(...SLUGS);
/** The project's locales: German falls back to English, French to nothing. */
const LOCALES = [{ code: 'en', default: true }, { code: 'de', fallback: 'en' }, { code: 'fr' }];
const CODES = LOCALES.map((l) => l.code);
const code = fc.constantFrom(...CODES);
const TITLES = ['alpha', 'beta', 'gamma'];
const title = fc.constantFrom(...TITLES);
/** A localized property's values: some locales of the project have one. */
const titles = fc.record({ en: title, de: title, fr: title }, { requiredKeys: [] });
/** Properties of the document that filters name (`content.<path>`), as the types' schema declares them. */
const documentFields = { slug, price: fc.integer({ min: 0, max: 20 }), featured: fc.boolean(), titles };
const entryFields = {
  name: words(1, 3),
  body: words(1, 4),
  tags,
  isTemplate: fc.boolean(),
  type: fc.nat(1),
  ...documentFields,
};
const TYPE_SCHEMA = {
  type: 'object',
  properties: {
    body: { type: 'string' },
    slug: { type: 'string' },
    price: { type: 'integer' },
    featured: { type: 'boolean' },
    title: { type: 'string', localized: true },
  },
};
const entry = fc.record(entryFields);
const draftEntry = fc.record({ ...entryFields, tags: fc.subarray(DRAFT_TAGS) });
type Of<A> = A extends fc.Arbitrary<infer T> ? T : never;

/** The project as seeded: published entries (some already edited since), drafts, and a key. */
const world = fc.record({
  published: fc.array(fc.record({ ...entryFields, editedSince: fc.option(entry, { nil: undefined }) }), {
    minLength: 2,
    maxLength: 5,
  }),
  drafts: fc.array(entry, { maxLength: 2 }),
});

/** Draft-only operations: none of them publishes, unpublishes or deletes anything a key can see. */
const draftOp = fc.oneof(
  fc.record({ kind: fc.constant('create' as const), entry: draftEntry }),
  fc.record({ kind: fc.constant('edit' as const), target: fc.nat(), entry: draftEntry }),
  // One locale's value of a working copy, written in that locale (null removes it: reads fall back).
  fc.record({
    kind: fc.constant('editLocale' as const),
    target: fc.nat(),
    locale: code,
    title: fc.option(title, { nil: null }),
  }),
  // A published component's working copy: its metadata and collection change, its published version does not.
  fc.record({
    kind: fc.constant('editComponent' as const),
    metadata: fc.record({ tags: fc.subarray(DRAFT_TAGS) }),
    collectionId: fc.constantFrom('unannounced-collection', null),
  }),
  fc.record({ kind: fc.constant('deleteDraft' as const), target: fc.nat() }),
  fc.record({ kind: fc.constant('discard' as const), target: fc.nat() }),
  fc.record({ kind: fc.constant('rollback' as const), target: fc.nat() }),
  fc.record({ kind: fc.constant('editType' as const), target: fc.nat(1), description: words(1, 3) }),
  // The working schema drops a property keys filter on: keys keep filtering on the published schema's.
  fc.record({ kind: fc.constant('editTypeSchema' as const), target: fc.nat(1) }),
);

const status = fc.constantFrom('published', 'modified', 'draft');
const sort = fc.constantFrom(
  'updatedAt:asc',
  'updatedAt:desc',
  'content.price:asc',
  'content.slug:desc',
  'content.title:asc',
);
/** A REST list query: any combination of the list filters, sort, full-text search and page size. */
const listQuery = fc.record(
  {
    search: word.map((w) => w.slice(0, 4)),
    tags: fc.subarray(TAGS, { minLength: 1 }).map((t) => t.join(',')),
    status,
    type: fc.nat(1),
    isTemplate: fc.boolean(),
    sort,
    limit: fc.integer({ min: 1, max: 3 }),
    query: words(1, 2),
    locale: fc.constantFrom(...CODES, '*'),
    /** Filters on the document's fields (the request then selects a type). */
    document: fc.record(
      {
        'content.slug': slug,
        'content.slug[in]': fc.subarray(SLUGS, { minLength: 1 }).map((s) => s.join(',')),
        'content.price[gte]': fc.integer({ min: 0, max: 20 }).map(String),
        'content.price[lt]': fc.integer({ min: 0, max: 20 }).map(String),
        'content.featured': fc.boolean().map(String),
        'content.body[like]': word,
        'content.slug[exists]': fc.boolean().map(String),
        'content.title': title,
        'content.title[exists]': fc.boolean().map(String),
      },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: [] },
);
/** A search filter over every filterable field. */
const d2Filter = fc.record(
  {
    name: fc.oneof(
      word.map((w) => ({ like: w })),
      word.map((w) => ({ like: `%${w}%` })),
    ),
    tags: fc.oneof(
      fc.constantFrom(...TAGS).map((t) => ({ eq: t })),
      fc.subarray(TAGS).map((t) => ({ any: t })),
      fc.subarray(TAGS).map((t) => ({ all: t })),
    ),
    status: fc.oneof(
      status.map((s) => ({ eq: s })),
      status.map((s) => ({ neq: s })),
      fc.subarray(['published', 'modified', 'draft']).map((s) => ({ in: s })),
    ),
    updatedAt: fc.constant({ gte: '2000-01-01T00:00:00Z' }),
    'metadata.author': fc.constant({ neq: 'nobody' }),
    'content.slug': fc.oneof(
      slug.map((v) => ({ eq: v })),
      slug.map((v) => ({ neq: v })),
      fc.subarray(SLUGS).map((v) => ({ in: v })),
    ),
    'content.price': fc.integer({ min: 0, max: 20 }).map((v) => ({ gt: v })),
    'content.featured': fc.boolean().map((v) => ({ eq: v })),
    'content.title': fc.oneof(
      title.map((v) => ({ eq: v })),
      title.map((v) => ({ like: v.slice(1) })),
    ),
  },
  { requiredKeys: [] },
);
const d2Body = fc.record(
  {
    filter: d2Filter,
    search: word,
    query: words(1, 2),
    sort: fc.constantFrom(
      { field: 'updatedAt', order: 'asc' },
      { field: 'updatedAt', order: 'desc' },
      { field: 'content.price', order: 'desc' },
    ),
    limit: fc.integer({ min: 1, max: 5 }),
  },
  { requiredKeys: [] },
);
const request = fc.oneof(
  fc.record({ kind: fc.constant('list' as const), query: listQuery, walk: fc.boolean() }),
  fc.record({ kind: fc.constant('search' as const), body: d2Body, locale: fc.option(code, { nil: undefined }) }),
  fc.record({ kind: fc.constant('graphql' as const), query: listQuery }),
  fc.record({ kind: fc.constant('typed' as const), query: listQuery }),
);

/** A list query's document filters as the typed endpoint's `where` (`content.price[gte]=3` → `{price: {gte: 3}}`). */
function typedWhere(document: Record<string, string> | undefined): Record<string, Record<string, unknown>> {
  const where: Record<string, Record<string, unknown>> = {};
  for (const [name, value] of Object.entries(document ?? {})) {
    const [, field, op = 'eq'] = /^content\.([a-z]+)(?:\[([a-z]+)\])?$/.exec(name)!;
    (where[field] ??= {})[op] =
      op === 'in'
        ? value.split(',')
        : op === 'exists' || field === 'featured'
          ? value === 'true'
          : field === 'price'
            ? Number(value)
            : value;
  }
  return where;
}
/** `content.price:asc` → `price_ASC`, `updatedAt:desc` → `sys_updatedAt_DESC`. */
const typedOrder = (sort: string) => {
  const [field, direction] = sort.split(':');
  return `${field === 'updatedAt' ? 'sys_updatedAt' : field.slice('content.'.length)}_${direction.toUpperCase()}`;
};
const TYPED_ENTRY = 'sys { id typeId typeVersion version publishedAt updatedAt } name body slug price featured title';

interface Project {
  app: string;
  api: string;
  key: string;
  projectId: string;
  typeIds: string[];
  /** Every entry the test made, with what it knows of its status. */
  entries: { id: string; status: 'draft' | 'published' | 'modified' }[];
  savedSearchId: string;
  componentId: string;
  /** The sync token of an initial sync walked when the project was seeded. */
  syncToken: string;
}

describe('what an API key sees does not depend on drafts (property, real service, read cache off)', () => {
  const fx = useService({ env: { ...UNLIMITED, CACHE: 'off' } });
  let pg: Pg;
  const admin = async (method: string, path: string, body?: unknown) => {
    const res = await fx.api.call(method, path, { token: fx.token, body });
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  /** The exact bytes of an answer (status and body), request ids aside. */
  const raw = async (method: string, path: string, key: string, body?: unknown) => {
    const headers: Record<string, string> = { 'x-api-key': key };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${fx.service.url}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return `${res.status} ${(await res.text()).replace(/"requestId":"[^"]*"/g, '"requestId":"-"')}`;
  };

  beforeAll(async () => {
    pg = new Pg({ connectionString: fx.service.databaseUrl });
    await pg.connect();
  });
  afterAll(() => pg?.end());

  const document = (e: Of<typeof entry>, typeIds: string[]) => ({
    name: e.name,
    // Written with `locale=*`: the localized title as a map of every locale's value.
    content: { body: e.body, slug: e.slug, price: e.price, featured: e.featured, title: e.titles },
    tags: e.tags,
    isTemplate: e.isTemplate,
    typeId: typeIds[e.type],
  });

  async function seed(w: Of<typeof world>): Promise<Project> {
    const project = await admin('POST', `/app/v1${ORG}/projects`, {
      name: `p-${Date.now()}-${Math.random()}`,
      locales: LOCALES,
    });
    const scope = `${ORG}/projects/${project.id}`;
    const app = `/app/v1${scope}`;
    const typeIds: string[] = [];
    for (const name of ['Article', 'Note']) {
      const type = await admin('POST', `${app}/content-types`, { name, schema: TYPE_SCHEMA });
      await admin('POST', `${app}/content-types/${type.id}/publish`);
      typeIds.push(type.id);
    }
    const entries: Project['entries'] = [];
    for (const p of w.published) {
      const { typeId, ...rest } = document(p, typeIds);
      const created = await admin('POST', `${app}/content?locale=*`, { typeId, ...rest });
      await admin('POST', `${app}/content/${created.id}/publish`);
      entries.push({ id: created.id, status: 'published' });
      if (p.editedSince) {
        const { typeId: _t, ...edit } = document(p.editedSince, typeIds);
        await admin('PUT', `${app}/content/${created.id}?locale=*`, edit);
        entries.at(-1)!.status = 'modified';
      }
    }
    for (const d of w.drafts)
      entries.push({ id: (await admin('POST', `${app}/content?locale=*`, document(d, typeIds))).id, status: 'draft' });
    const saved = await admin('POST', `${app}/saved-searches`, {
      name: 'reports',
      query: { filter: { name: { like: 'report' } }, search: 'qua' },
    });
    const component = await admin('POST', `${app}/components`, {
      name: 'Hero',
      type: 'view',
      content: `export interface Props { title: string }
export function metadata() { return { title: 'Hero', description: 'A hero' }; }
export default function render(props: Props) { return '<h1>' + props.title + '</h1>'; }`,
      collectionId: 'heroes',
      metadata: { tags: ['public'] },
    });
    await admin('POST', `${app}/packages`, {});
    const key = (await admin('POST', `${app}/api-keys`, { name: 'site' })).key;
    const api = `/api/v1${scope}`;
    const { last } = await walkSync(api, key, 'initial=true');
    return {
      app,
      api,
      key,
      projectId: project.id,
      typeIds,
      entries,
      savedSearchId: saved.id,
      componentId: component.id,
      syncToken: JSON.parse(last.slice(4)).nextSyncToken,
    };
  }

  /**
   * Every page of a sync (`initial=true` or a `syncToken`), tokens masked: they carry feed positions, which any write
   * moves, while the pages' contents must not move with drafts.
   */
  async function walkSync(api: string, key: string, start: string) {
    const pages: string[] = [];
    let last = await raw('GET', `${api}/sync?${start}`, key);
    for (;;) {
      pages.push(last.replace(/"(nextPageToken|nextSyncToken)":"[^"]*"/g, '"$1":"-"'));
      const next = /"nextPageToken":"([^"]+)"/.exec(last)?.[1];
      if (!next || pages.length > 20) return { pages, last };
      last = await raw('GET', `${api}/sync?pageToken=${encodeURIComponent(next)}`, key);
    }
  }

  /** Every recorded request's answer, in order. */
  async function record(p: Project, requests: Of<typeof request>[]): Promise<string[]> {
    const params = (q: Of<typeof listQuery>) => {
      const { type, isTemplate, limit, document, ...rest } = q;
      const s = new URLSearchParams(rest as Record<string, string>);
      const filters = Object.entries(document ?? {});
      // Document filters and sorts need one selected type.
      if (type !== undefined || filters.length || rest.sort?.startsWith('content.'))
        s.set('type', p.typeIds[type ?? 0]);
      for (const [name, value] of filters) s.set(name, value);
      if (isTemplate !== undefined) s.set('isTemplate', String(isTemplate));
      if (limit !== undefined) s.set('limit', String(limit));
      return s;
    };
    const out: string[] = [];
    for (const r of requests) {
      if (r.kind === 'list') {
        let answer = await raw('GET', `${p.api}/content?${params(r.query)}`, p.key);
        out.push(answer);
        // Walk a few pages: a cursor holds the last entry's sort value.
        for (let page = 0; r.walk && page < 3; page++) {
          const lastKey = /"lastKey":"([^"]+)"/.exec(answer)?.[1];
          if (!lastKey) break;
          out.push(
            (answer = await raw(
              'GET',
              `${p.api}/content?${params(r.query)}&lastKey=${encodeURIComponent(lastKey)}`,
              p.key,
            )),
          );
        }
      } else if (r.kind === 'search') {
        const filter = r.body.filter;
        // Document filters and sorts need one selected type.
        const typed =
          Object.keys(filter ?? {}).some((f) => f.startsWith('content.')) || r.body.sort?.field.startsWith('content.')
            ? { ...r.body, filter: { ...filter, typeId: { eq: p.typeIds[0] } } }
            : r.body;
        const locale = r.locale ? `?locale=${r.locale}` : '';
        out.push(await raw('POST', `${p.api}/content/search${locale}`, p.key, typed));
      } else if (r.kind === 'typed') {
        const { type, limit, document, sort, locale } = r.query;
        const [name, root] = (type ?? 0) === 0 ? ['Article', 'article'] : ['Note', 'note'];
        const source = `query($where: ${name}Filter, $order: [${name}Order!], $limit: Int, $locale: String) {
          ${root}Collection(where: $where, order: $order, limit: $limit, locale: $locale) { total items { ${TYPED_ENTRY} } } }`;
        const variables = {
          where: typedWhere(document),
          order: sort && [typedOrder(sort)],
          limit,
          // The typed endpoint answers one locale at a time.
          locale: locale === '*' ? undefined : locale,
        };
        const answer = await raw('POST', `${p.api}/graphql`, p.key, { query: source, variables });
        // Every generated typed query is valid: equal refusals would prove nothing.
        expect(answer.startsWith('200 {"data"'), answer).toBe(true);
        out.push(answer);
      } else {
        const { type, query, document, ...rest } = r.query;
        // The REST parameters' filters as GraphQL's `filter` argument: `content.price[gte]` → `{"content.price": {gte}}`.
        const filter: Record<string, Record<string, unknown>> = {};
        for (const [name, value] of Object.entries(document ?? {})) {
          const [, field, op = 'eq'] = /^(content\.[a-z]+)(?:\[([a-z]+)\])?$/.exec(name)!;
          (filter[field] ??= {})[op] = value;
        }
        const typeId =
          type !== undefined || document || rest.sort?.startsWith('content.') ? p.typeIds[type ?? 0] : undefined;
        const args = Object.entries({ ...rest, typeId, query })
          .filter(([, v]) => v !== undefined)
          .map(([k, v]) => (k === 'status' ? `${k}: ${v}` : `${k}: ${JSON.stringify(v)}`));
        if (document) args.push('filter: $filter');
        const fields =
          'data { id name description tags status version lastPublishedVersion revision typeVersion isTemplate folderId metadata content createdAt updatedAt } pagination { lastKey }';
        const source = `query($filter: JSONObject) { contents(organizationId: "default", projectId: "${p.projectId}"${args.map((a) => `, ${a}`).join('')}) { ${fields} } }`;
        out.push(await raw('POST', '/graphql', p.key, { query: source, variables: { filter } }));
      }
    }
    // What every key sees whatever the generated requests: each entry (published, resolved, or 404), the default
    // list, saved-search execution, published-state events and the content types.
    for (const e of p.entries) {
      out.push(await raw('GET', `${p.api}/content/${e.id}`, p.key));
      out.push(await raw('GET', `${p.api}/content/${e.id}/resolved`, p.key));
      for (const locale of ['de', '*'])
        out.push(await raw('GET', `${p.api}/content/${e.id}/resolved?locale=${locale}`, p.key));
      const typedSingle = `{ article(id: "${e.id}") { ${TYPED_ENTRY} } note(id: "${e.id}") { ${TYPED_ENTRY} } entry(id: "${e.id}") { sys { id version } } }`;
      out.push(await raw('POST', `${p.api}/graphql`, p.key, { query: typedSingle }));
    }
    // The typed schema follows published types only: a working copy's schema changes nothing.
    out.push(await raw('GET', `${p.api}/graphql/schema.graphql`, p.key));
    out.push(await raw('GET', `${p.api}/content`, p.key));
    out.push(await raw('POST', `${p.api}/saved-searches/${p.savedSearchId}/execute`, p.key, {}));
    out.push(await raw('GET', `${p.api}/events?limit=100`, p.key));
    out.push(await raw('GET', `${p.api}/content-types`, p.key));
    for (const t of p.typeIds) out.push(await raw('GET', `${p.api}/content-types/${t}`, p.key));
    // Tags (those published entries carry) and components (their published version's metadata and collection).
    out.push(await raw('GET', `${p.api}/tags`, p.key));
    out.push(await raw('GET', `${p.api}/tags?search=un`, p.key));
    const tagsQuery = `{ tags(organizationId: "default", projectId: "${p.projectId}") { data { id name } } }`;
    out.push(await raw('POST', '/graphql', p.key, { query: tagsQuery }));
    out.push(await raw('GET', `${p.api}/components`, p.key));
    out.push(await raw('GET', `${p.api}/components/${p.componentId}`, p.key));
    // A new sync, and the changes since the one walked at seeding: drafts are in neither.
    out.push(...(await walkSync(p.api, p.key, 'initial=true')).pages);
    out.push(...(await walkSync(p.api, p.key, `syncToken=${encodeURIComponent(p.syncToken)}`)).pages);
    return out;
  }

  /** Until the embedding indexer has caught up with every entry of the project (working copies and published). */
  async function indexed(p: Project): Promise<void> {
    const behind = async () => {
      const { rows } = await pg.query(
        `select count(*)::int as n from content c left join content_embedding e on e.content_id = c.id
          where c.project_id = $1 and (e.content_id is null or e.source_updated_at < c.updated_at)`,
        [p.projectId],
      );
      let n = rows[0].n as number;
      try {
        const published = await pg.query(
          `select count(*)::int as n from published_content c left join published_content_embedding e on e.content_id = c.id
            where c.project_id = $1 and (e.content_id is null or e.source_updated_at <> c.updated_at)`,
          [p.projectId],
        );
        n += published.rows[0].n as number;
      } catch {
        // A build without published embeddings: the working copies' are all there is to wait for.
      }
      return n;
    };
    const deadline = Date.now() + 60_000;
    while ((await behind()) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
  }

  async function applyDraftOps(p: Project, ops: Of<typeof draftOp>[]): Promise<void> {
    const pick = (target: number, ok: (s: string) => boolean) => {
      const candidates = p.entries.filter((e) => ok(e.status));
      return candidates.length ? candidates[target % candidates.length] : undefined;
    };
    for (const op of ops) {
      if (op.kind === 'create') {
        p.entries.push({
          id: (await admin('POST', `${p.app}/content?locale=*`, document(op.entry, p.typeIds))).id,
          status: 'draft',
        });
      } else if (op.kind === 'edit') {
        const e = pick(op.target, () => true);
        const { typeId: _t, ...edit } = document(op.entry, p.typeIds);
        await admin('PUT', `${p.app}/content/${e!.id}?locale=*`, edit);
        if (e!.status === 'published') e!.status = 'modified';
      } else if (op.kind === 'editLocale') {
        const e = pick(op.target, () => true)!;
        const { content } = await admin('GET', `${p.app}/content/${e.id}?locale=${op.locale}`);
        await admin('PUT', `${p.app}/content/${e.id}?locale=${op.locale}`, {
          content: { ...content, title: op.title },
        });
        if (e.status === 'published') e.status = 'modified';
      } else if (op.kind === 'deleteDraft') {
        const e = pick(op.target, (s) => s === 'draft');
        if (e) {
          await admin('DELETE', `${p.app}/content/${e.id}`);
          p.entries.splice(p.entries.indexOf(e), 1);
        }
      } else if (op.kind === 'discard') {
        const e = pick(op.target, (s) => s === 'modified');
        if (e) {
          await admin('POST', `${p.app}/content/${e.id}/discard`);
          e.status = 'published';
        }
      } else if (op.kind === 'rollback') {
        const e = pick(op.target, (s) => s === 'published');
        if (e) {
          await admin('POST', `${p.app}/content/${e.id}/rollback`, { version: 1 });
          e.status = 'modified';
        }
      } else if (op.kind === 'editComponent') {
        await admin('PUT', `${p.app}/components/${p.componentId}`, {
          metadata: op.metadata,
          collectionId: op.collectionId,
        });
      } else if (op.kind === 'editTypeSchema') {
        const { price: _dropped, ...properties } = TYPE_SCHEMA.properties;
        await admin('PUT', `${p.app}/content-types/${p.typeIds[op.target]}`, {
          schema: { ...TYPE_SCHEMA, properties },
        });
      } else {
        await admin('PUT', `${p.app}/content-types/${p.typeIds[op.target]}`, { description: op.description });
      }
    }
  }

  it('draft edits never change what a key sees', async () => {
    await fc.assert(
      fc.asyncProperty(
        world,
        fc.array(request, { minLength: 8, maxLength: 16 }),
        fc.array(draftOp, { minLength: 1, maxLength: 8 }),
        async (w, requests, ops) => {
          const p = await seed(w);
          const entries = [...p.entries];
          await indexed(p);
          // Settled: published-state events are numbered just after their commit; ask until two rounds agree.
          let before = await record(p, requests);
          for (
            let again = await record(p, requests), tries = 0;
            JSON.stringify(again) !== JSON.stringify(before) && tries < 10;
            tries++
          ) {
            await new Promise((r) => setTimeout(r, 300));
            before = again;
            again = await record(p, requests);
          }
          // Equal answers prove nothing if they are failures: none may be a 5xx.
          expect(before.filter((answer) => answer.startsWith('5'))).toEqual([]);
          await applyDraftOps(p, ops);
          await indexed(p);
          const after = await record({ ...p, entries }, requests);
          for (const [i, answer] of after.entries())
            expect(answer, `answer ${i} after ${JSON.stringify(ops)}`).toBe(before[i]);
        },
      ),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
  }, 600_000);
});
