// Black-box: filters on the fields inside a document (`content.<path>`) over REST (both families, GET and search
// bodies) and GraphQL, checked against the type's schema; API keys filter the published documents only, on an index.
import fc from 'fast-check';
import { Client as Pg } from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { PROJECT } from './support/client';
import { UNLIMITED } from './support/service';
import { useService } from './support/setup';

const RUNS = Number(process.env.FC_RUNS ?? 6);
const SEED = Number(process.env.FC_SEED ?? 20261128);

const SCHEMA = {
  type: 'object',
  properties: {
    slug: { type: 'string' },
    price: { type: 'number' },
    featured: { type: 'boolean' },
    author: { type: 'object', properties: { name: { type: 'string' } } },
    gallery: { type: 'array', items: { type: 'object', properties: { url: { type: 'string' } } } },
  },
};

describe('queries on the fields inside a document', () => {
  const fx = useService({ env: UNLIMITED });
  const app = `/app/v1${PROJECT}`;
  const api = `/api/v1${PROJECT}`;
  let typeId = '';
  let key = '';
  const ids: Record<string, string> = {};
  const admin = async (method: string, path: string, body?: unknown) => {
    const res = await fx.api.call(method, `${app}${path}`, { token: fx.token, body });
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
    return res.body;
  };
  const client = (path: string) => fx.api.call('GET', `${api}${path}`, { apiKey: key });
  const names = (res: { status: number; body: any }) => {
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return (res.body.data as { name: string }[]).map((e) => e.name).sort();
  };

  beforeAll(async () => {
    typeId = (await admin('POST', '/content-types', { name: 'Landing', schema: SCHEMA })).id;
    await admin('POST', `/content-types/${typeId}/publish`);
    const pages = [
      { name: 'Launch', content: { slug: 'launch', price: 10, featured: true, author: { name: 'Ada' } } },
      { name: 'About', content: { slug: 'about', price: 2.5, featured: false, author: { name: 'Grace' } } },
      { name: 'Pricing', content: { slug: 'pricing', price: 30, featured: true } },
      { name: 'Secret', content: { slug: 'secret', price: 99, featured: true } },
    ];
    for (const page of pages) {
      ids[page.name] = (await admin('POST', '/content', { typeId, ...page })).id;
      if (page.name !== 'Secret') await admin('POST', `/content/${ids[page.name]}/publish`);
    }
    // A draft edit of a published page: staff see the new slug, keys the published one.
    await admin('PUT', `/content/${ids.About}`, { content: { slug: 'about-us', price: 2.5, featured: false } });
    key = (await admin('POST', '/api-keys', { name: 'site' })).key;
  });

  it('finds a page by slug, on the published documents for keys and the working copies for staff', async () => {
    const bySlug = async (slug: string) => ({
      key: names(await client(`/content?typeId=${typeId}&content.slug=${slug}`)),
      staff: names(
        await fx.api.call('GET', `${app}/content?typeId=${typeId}&content.slug=${slug}`, { token: fx.token }),
      ),
    });
    expect(await bySlug('launch')).toEqual({ key: ['Launch'], staff: ['Launch'] });
    expect(await bySlug('about')).toEqual({ key: ['About'], staff: [] });
    expect(await bySlug('about-us')).toEqual({ key: [], staff: ['About'] });
    expect(await bySlug('secret')).toEqual({ key: [], staff: ['Secret'] });
  });

  it('takes each operator of the property’s type, values read as that type', async () => {
    const query = async (params: string) => names(await client(`/content?typeId=${typeId}&${params}`));
    expect(await query('content.price[gte]=10')).toEqual(['Launch', 'Pricing']);
    expect(await query('content.price[lt]=10')).toEqual(['About']);
    expect(await query('content.price=2.5')).toEqual(['About']);
    expect(await query('content.featured=true')).toEqual(['Launch', 'Pricing']);
    expect(await query('content.featured[neq]=true')).toEqual(['About']);
    expect(await query('content.slug[in]=launch,pricing,nothing')).toEqual(['Launch', 'Pricing']);
    expect(await query('content.slug[like]=RIC')).toEqual(['Pricing']);
    expect(await query('content.slug[gt]=launch')).toEqual(['Pricing']);
    expect(await query('content.author.name=Ada')).toEqual(['Launch']);
    expect(await query('content.author[exists]=false')).toEqual(['Pricing']);
    expect(await query('content.price[gte]=5&content.featured=true&content.slug[neq]=launch')).toEqual(['Pricing']);
  });

  it('answers a search body and GraphQL alike', async () => {
    const search = await fx.api.call('POST', `${api}/content/search`, {
      apiKey: key,
      body: { filter: { typeId: { eq: typeId }, 'content.price': { gte: 10 }, 'content.featured': { eq: true } } },
    });
    expect(search.status).toBe(200);
    expect(names(search)).toEqual(['Launch', 'Pricing']);
    expect(search.body.pagination.total).toBe(2);
    const graphql = await fx.api.call('POST', '/graphql', {
      apiKey: key,
      body: {
        query: `query($filter: JSONObject) { contents(organizationId: "default", projectId: "default", typeId: "${typeId}", filter: $filter) { data { name } } }`,
        variables: { filter: { 'content.author.name': { eq: 'Ada' } } },
      },
    });
    expect(graphql.body).toEqual({ data: { contents: { data: [{ name: 'Launch' }] } } });
  });

  it('sorts by a property, ties and missing values included, over REST, a search body and GraphQL', async () => {
    const sorted = async (sort: string) => names(await client(`/content?typeId=${typeId}&sort=${sort}`));
    // Prices: About 2.5, Launch 10, Pricing 30 (Secret is a draft); keys see the published documents.
    expect(
      await client(`/content?typeId=${typeId}&sort=content.price:asc`).then((r) => r.body.data.map((e: any) => e.name)),
    ).toEqual(['About', 'Launch', 'Pricing']);
    expect(
      (await client(`/content?typeId=${typeId}&sort=content.price:desc`)).body.data.map((e: any) => e.name),
    ).toEqual(['Pricing', 'Launch', 'About']);
    expect(await sorted('content.author.name:asc')).toEqual(['About', 'Launch', 'Pricing']);
    const search = await fx.api.call('POST', `${api}/content/search`, {
      apiKey: key,
      body: { filter: { typeId: { eq: typeId } }, sort: [{ field: 'content.slug', order: 'desc' }] },
    });
    expect(search.body.data.map((e: any) => e.name)).toEqual(['Pricing', 'Launch', 'About']);
    const graphql = await fx.api.call('POST', '/graphql', {
      apiKey: key,
      body: {
        query: `{ contents(organizationId: "default", projectId: "default", typeId: "${typeId}", sort: "content.price:desc", limit: 1) { data { name } } }`,
      },
    });
    expect(graphql.body).toEqual({ data: { contents: { data: [{ name: 'Pricing' }] } } });
    for (const sort of ['content.author:asc', 'content.gallery:asc', 'content.nope:asc', 'price:asc']) {
      const res = await client(`/content?typeId=${typeId}&sort=${sort}`);
      expect({ sort, status: res.status }).toEqual({ sort, status: 400 });
    }
    // A cursor of the default order is not one of a document order: 400, not a database error.
    const byDate = await client(`/content?typeId=${typeId}&limit=1`);
    const reused = await client(
      `/content?typeId=${typeId}&sort=content.price:asc&lastKey=${encodeURIComponent(byDate.body.pagination.lastKey)}`,
    );
    expect(reused.status).toBe(400);
  });

  it('walks cursor pages under a property sort to the end: every entry exactly once, in order, with inserts between pages', async () => {
    const price = fc.option(fc.constantFrom(1, 2, 2, 3, 5.5, 8), { nil: undefined });
    await fc.assert(
      fc.asyncProperty(
        fc.array(price, { minLength: 1, maxLength: 7 }),
        fc.array(price, { maxLength: 3 }),
        fc.integer({ min: 1, max: 3 }),
        fc.constantFrom('asc', 'desc'),
        async (prices, inserted, limit, direction) => {
          const type = (await admin('POST', '/content-types', { name: `Shop ${Math.random()}`, schema: SCHEMA })).id;
          await admin('POST', `/content-types/${type}/publish`);
          const publish = async (p: number | undefined, i: number) => {
            const body = { typeId: type, name: `e${i}`, content: p === undefined ? {} : { price: p } };
            const id = (await admin('POST', '/content', body)).id as string;
            await admin('POST', `/content/${id}/publish`);
            return { id, price: p };
          };
          const seeded = [];
          for (const [i, p] of prices.entries()) seeded.push(await publish(p, i));
          const seen: { id: string; price: number | undefined }[] = [];
          let lastKey: string | undefined;
          const inserts = [...inserted];
          do {
            const cursor = lastKey ? `&lastKey=${encodeURIComponent(lastKey)}` : '';
            const page = await client(
              `/content?typeId=${type}&sort=content.price:${direction}&limit=${limit}${cursor}`,
            );
            expect(page.status, JSON.stringify(page.body)).toBe(200);
            seen.push(...page.body.data.map((e: any) => ({ id: e.id, price: e.content.price })));
            lastKey = page.body.pagination.lastKey;
            // Writes between pages: new entries, anywhere in the order.
            if (inserts.length) await publish(inserts.shift(), 100 + inserts.length);
          } while (lastKey);
          const ids = seen.map((e) => e.id);
          expect(new Set(ids).size).toBe(ids.length);
          for (const e of seeded) expect(ids).toContain(e.id);
          // Missing values sort as JSON null, before every number.
          const rank = (p: number | undefined) => (p === undefined ? -Infinity : p);
          const ranks = seen.map((e) => rank(e.price));
          const ordered = [...ranks].sort((a, b) => (direction === 'asc' ? a - b : b - a));
          expect(ranks).toEqual(ordered);
        },
      ),
      { numRuns: RUNS, seed: SEED },
    );
  }, 240_000);

  it('refuses what the schema does not declare, a path into an array, no type, a wrong operator or value: 400 naming the field', async () => {
    const refusals: [string, string][] = [
      [`typeId=${typeId}&content.nope=1`, 'content.nope'],
      [`typeId=${typeId}&content.gallery.url=x`, 'content.gallery.url'],
      ['content.slug=launch', 'content.slug'],
      [`typeId=${typeId}&content.price=cheap`, 'content.price'],
      [`typeId=${typeId}&content.featured[like]=t`, 'content.featured'],
      [`typeId=${typeId}&content.slug[exists]=maybe`, 'content.slug'],
    ];
    for (const [params, field] of refusals) {
      const res = await client(`/content?${params}`);
      expect({ params, status: res.status, code: res.body.error?.code, field: res.body.error?.details?.field }).toEqual(
        {
          params,
          status: 400,
          code: 'BAD_REQUEST',
          field,
        },
      );
    }
    // Brackets are admitted for a document field's operator only.
    const other = await client(`/content?typeId=${typeId}&limit[gte]=1`);
    expect(other.status).toBe(400);
    expect(other.body.error.details.parameter).toBe('limit[gte]');
  });

  it('runs an `eq` on a published property on the document index, not a scan of the type', async () => {
    const pg = new Pg({ connectionString: fx.service.databaseUrl });
    await pg.connect();
    try {
      // 20,000 published rows of one type in a project of their own, so the planner weighs a real table.
      await pg.query(`insert into published_content ("id", "organization_id", "project_id", "type_id", "type_version",
          "package_version", "version", "name", "is_template", "tags", "metadata", "created_by_id", "created_at",
          "updated_at", "search_vector", "content")
        select 'bulk-' || i, 'default', 'bulk', 'bulk-type', 1, '0.0.0', 1, 'Page ' || i, false, '[]', '{}', 'u', now(), now(),
          ''::tsvector, jsonb_build_object('slug', 'page-' || i)
        from generate_series(1, 20000) i`);
      await pg.query('analyze published_content');
      // The shape of the list's condition (content-fields.ts): project and type, then containment.
      const plan = await pg.query(
        `explain select id from published_content c where c.project_id = $1 and c.type_id = $2 and c.content @> $3::jsonb`,
        ['bulk', 'bulk-type', JSON.stringify({ slug: 'page-777' })],
      );
      const text = plan.rows.map((r) => r['QUERY PLAN']).join('\n');
      expect(text).toMatch(/published_content_document_index/);
      expect(text).not.toMatch(/Seq Scan/);
    } finally {
      await pg.query(`delete from published_content where project_id = 'bulk'`);
      await pg.end();
    }
  });
});
