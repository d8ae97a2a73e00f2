// Black-box: a bilingual site. Project locales with fallback chains, localized properties written per locale or all at
// once, and read through the chain on every path (REST both families, GraphQL, includes, filters, sort, the typed
// endpoint); a locale change reaches the cached answers at once.
import { beforeAll, describe, expect, it } from 'vitest';
import { PROJECT } from './support/client';
import { UNLIMITED } from './support/service';
import { useService } from './support/setup';

const LOCALES = [
  { code: 'en', default: true },
  { code: 'de', fallback: 'en' },
  { code: 'de-CH', fallback: 'de' },
];

describe('localized content', () => {
  const fx = useService({ env: UNLIMITED });
  const app = `/app/v1${PROJECT}`;
  const api = `/api/v1${PROJECT}`;
  let key = '';
  let pageType = '';
  let authorType = '';
  const ids: Record<string, string> = {};
  const admin = async (method: string, path: string, body?: unknown) => {
    const res = await fx.api.call(method, `${app}${path}`, { token: fx.token, body });
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
    return res.body;
  };
  const client = async (path: string) => {
    const res = await fx.api.call('GET', `${api}${path}`, { apiKey: key });
    expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
    return res.body;
  };
  const setLocales = (locales: unknown) =>
    fx.api.call('PUT', `/app/v1/organizations/default/projects/default`, { token: fx.token, body: { locales } });

  beforeAll(async () => {
    expect((await setLocales(LOCALES)).status).toBe(200);
    authorType = (
      await admin('POST', '/content-types', {
        name: 'Author',
        schema: { type: 'object', properties: { name: { type: 'string' }, bio: { type: 'string', localized: true } } },
      })
    ).id;
    await admin('POST', `/content-types/${authorType}/publish`);
    pageType = (
      await admin('POST', '/content-types', {
        name: 'Page',
        schema: {
          type: 'object',
          required: ['title'],
          properties: {
            title: { type: 'string', localized: true },
            slug: { type: 'string', localized: true },
            price: { type: 'number' },
            author: { type: 'string', reference: { typeIds: [authorType] } },
          },
        },
      })
    ).id;
    await admin('POST', `/content-types/${pageType}/publish`);
    ids.ada = (
      await admin('POST', '/content?locale=*', {
        typeId: authorType,
        name: 'Ada',
        content: { name: 'Ada', bio: { en: 'Mathematician', de: 'Mathematikerin' } },
      })
    ).id;
    await admin('POST', `/content/${ids.ada}/publish`);
    // Written in English, then German, one locale at a time.
    ids.launch = (
      await admin('POST', '/content', {
        typeId: pageType,
        name: 'Launch',
        content: { title: 'Hello', slug: 'hello', price: 3, author: ids.ada },
      })
    ).id;
    await admin('PUT', `/content/${ids.launch}?locale=de`, {
      content: { title: 'Hallo', slug: 'hallo', price: 3, author: ids.ada },
    });
    await admin('POST', `/content/${ids.launch}/publish`);
    ids.about = (
      await admin('POST', '/content', {
        typeId: pageType,
        name: 'About',
        content: { title: 'About', slug: 'about', price: 1 },
      })
    ).id;
    await admin('POST', `/content/${ids.about}/publish`);
    key = (await admin('POST', '/api-keys', { name: 'site' })).key;
  });

  it('stores one value per locale: a write in one locale keeps the others', async () => {
    const all = await admin('GET', `/content/${ids.launch}?locale=*`);
    expect(all.content).toEqual({
      title: { en: 'Hello', de: 'Hallo' },
      slug: { en: 'hello', de: 'hallo' },
      price: 3,
      author: ids.ada,
    });
    expect(all.locale).toBe('*');
    const project = await fx.api.call('GET', '/app/v1/organizations/default/projects/default', { token: fx.token });
    expect(project.body.locales).toEqual([
      { code: 'en', fallback: null, default: true },
      { code: 'de', fallback: 'en', default: false },
      { code: 'de-CH', fallback: 'de', default: false },
    ]);
  });

  it('reads resolve the fallback chain or omit the value, and carry the locale', async () => {
    const read = async (locale: string) => {
      const entry = await client(`/content/${ids.about}/resolved?locale=${locale}`);
      return { locale: entry.locale, content: entry.content };
    };
    expect(await read('de-CH')).toEqual({ locale: 'de-CH', content: { title: 'About', slug: 'about', price: 1 } });
    const launch = await client(`/content/${ids.launch}/resolved?locale=de-ch`);
    expect(launch.locale).toBe('de-CH');
    expect(launch.content).toEqual({ title: 'Hallo', slug: 'hallo', price: 3, author: ids.ada });
    expect((await client(`/content/${ids.launch}/resolved`)).content.title).toBe('Hello');
    const unknown = await fx.api.call('GET', `${api}/content/${ids.launch}/resolved?locale=fr`, { apiKey: key });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ code: 'BAD_REQUEST', details: { parameter: 'locale' } });
  });

  it('filters and sorts on the value read in the locale, fallbacks included', async () => {
    const names = async (query: string) =>
      ((await client(`/content?typeId=${pageType}&${query}`)).data as { name: string }[]).map((e) => e.name);
    expect(await names('content.slug=hallo&locale=de-CH')).toEqual(['Launch']);
    expect(await names('content.slug=hallo')).toEqual([]);
    expect(await names('content.slug=hello&locale=de')).toEqual([]);
    expect(await names('content.slug=about&locale=de')).toEqual(['About']);
    // German titles: "About" (fallback) < "Hallo"; English: "About" < "Hello".
    expect(await names('sort=content.title:desc&locale=de')).toEqual(['Launch', 'About']);
    // Page by page, the cursor keeps the value read in the locale.
    const walked: string[] = [];
    for (let lastKey = ''; ;) {
      const page = await client(`/content?typeId=${pageType}&sort=content.title:desc&locale=de&limit=1${lastKey}`);
      walked.push(...page.data.map((e: { name: string }) => e.name));
      if (!page.pagination.lastKey) break;
      lastKey = `&lastKey=${encodeURIComponent(page.pagination.lastKey)}`;
    }
    expect(walked).toEqual(['Launch', 'About']);
    const search = await fx.api.call('POST', `${api}/content/search?locale=de`, {
      apiKey: key,
      body: { filter: { typeId: { eq: pageType }, 'content.title': { like: 'hal' } } },
    });
    expect(search.status, JSON.stringify(search.body)).toBe(200);
    expect(search.body.data.map((e: { name: string }) => e.name)).toEqual(['Launch']);
    expect(search.body.data[0].content.title).toBe('Hallo');
  });

  it('cascades the locale into includes and references, and answers GraphQL as REST', async () => {
    const page = await client(`/content/${ids.launch}/resolved?locale=de&include=1`);
    expect(page.includes.content).toHaveLength(1);
    expect(page.includes.content[0]).toMatchObject({ id: ids.ada, locale: 'de', content: { bio: 'Mathematikerin' } });
    const graphql = await fx.api.call('POST', '/graphql', {
      apiKey: key,
      body: {
        query: `{ content(organizationId: "default", projectId: "default", id: "${ids.launch}", locale: "de-CH") { locale content references { locale content } } }`,
      },
    });
    expect(graphql.body).toEqual({
      data: {
        content: {
          locale: 'de-CH',
          content: { title: 'Hallo', slug: 'hallo', price: 3, author: ids.ada },
          references: [{ locale: 'de-CH', content: { name: 'Ada', bio: 'Mathematikerin' } }],
        },
      },
    });
  });

  it('builds the compiled module for the requested locale', async () => {
    const german = await client(`/content/${ids.launch}/resolved?locale=de`);
    const english = await client(`/content/${ids.launch}/resolved`);
    expect(german.compiled).toContain('"Hallo"');
    expect(german.compiled).not.toContain('"Hello"');
    expect(english.compiled).toContain('"Hello"');
    expect(english.compiled).not.toContain('"Hallo"');
  });

  it('answers API keys from published state only, whatever a draft writes in a locale', async () => {
    const before = await client(`/content/${ids.launch}/resolved?locale=de`);
    await admin('PUT', `/content/${ids.launch}?locale=de`, {
      content: { title: 'Entwurf', slug: 'entwurf', price: 3, author: ids.ada },
    });
    expect(await client(`/content/${ids.launch}/resolved?locale=de`)).toEqual(before);
    expect((await admin('GET', `/content/${ids.launch}?locale=de`)).content.title).toBe('Entwurf');
    expect((await admin('GET', `/content/${ids.launch}?locale=en`)).content.title).toBe('Hello');
    await admin('POST', `/content/${ids.launch}/discard`);
  });

  it('validates every locale’s values, naming the locale', async () => {
    const res = await fx.api.call('PUT', `${app}/content/${ids.about}?locale=de`, {
      token: fx.token,
      body: { content: { title: 5, price: 1 } },
    });
    expect(res.status).toBe(422);
    expect(res.body.error.details.errors.map((e: { path: string }) => e.path)).toEqual(['/title/de']);
    const all = await fx.api.call('PUT', `${app}/content/${ids.about}?locale=*`, {
      token: fx.token,
      body: { content: { title: { en: 'About', xx: 'No' }, price: 1 } },
    });
    expect(all.status).toBe(422);
    expect(all.body.error.details.errors.map((e: { path: string }) => e.path)).toEqual(['/title/xx']);
    const cycle = await setLocales([
      { code: 'en', default: true, fallback: 'de' },
      { code: 'de', fallback: 'en' },
    ]);
    expect(cycle.status).toBe(422);
  });

  it('answers the typed endpoint in a locale', async () => {
    const res = await fx.api.call('POST', `${api}/graphql`, {
      apiKey: key,
      body: {
        query: `{ pageCollection(locale: "de-CH", where: { slug: { eq: "hallo" } }) { items { title author { bio } } } }`,
      },
    });
    expect(res.body).toEqual({
      data: { pageCollection: { items: [{ title: 'Hallo', author: { bio: 'Mathematikerin' } }] } },
    });
  });

  it('a locale change reaches cached answers at once', async () => {
    const path = `/content/${ids.launch}/resolved?locale=de-CH`;
    expect((await client(path)).content.title).toBe('Hallo');
    expect((await client(path)).content.title).toBe('Hallo'); // now cached
    // Swiss German falls back to English directly: the cached answer must not be served again.
    expect((await setLocales([LOCALES[0], LOCALES[1], { code: 'de-CH', fallback: 'en' }])).status).toBe(200);
    expect((await client(path)).content.title).toBe('Hello');
    // A removed locale is refused, and its values are kept for when it comes back.
    expect((await setLocales([LOCALES[0], { code: 'de-CH', fallback: 'en' }])).status).toBe(200);
    expect((await fx.api.call('GET', `${api}/content/${ids.launch}/resolved?locale=de`, { apiKey: key })).status).toBe(
      400,
    );
    expect((await client(`/content/${ids.launch}/resolved?locale=*`)).content.title).toEqual({ en: 'Hello' });
    expect((await setLocales(LOCALES)).status).toBe(200);
    expect((await client(`/content/${ids.launch}/resolved?locale=de`)).content.title).toBe('Hallo');
  });
});
