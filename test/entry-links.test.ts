// Black-box: references between entries (the `reference` keyword): targets checked on save, deletes of referenced
// entries and assets refused, referenced-by lists per family and caller, GraphQL `references` and `referencedBy`.
import fc from 'fast-check';
import { Client as Pg } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT } from './support/client';
import { UNLIMITED } from './support/service';
import { useService } from './support/setup';

// Twelve sequences by default: with this seed, among them an entry edited twice to the same shape with other targets
// (an edit whose links may only be left alone when they are the same links; a fixed test pins that case too).
const RUNS = Number(process.env.FC_RUNS ?? 12);
const SEED = Number(process.env.FC_SEED ?? 20261128);

// A valid 1×1 PNG.
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d4948445200000001000000010806000000' +
    '1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082',
  'hex',
);

describe('references between entries', () => {
  const fx = useService({ env: UNLIMITED });
  const app = `/app/v1${PROJECT}`;
  const api = `/api/v1${PROJECT}`;
  let pg: Pg;
  let authorType = '';
  let articleType = '';
  let key = '';
  let previewKey = '';

  const call = (method: string, path: string, body?: unknown) =>
    fx.api.call(method, `${app}${path}`, { token: fx.token, body });
  const admin = async (method: string, path: string, body?: unknown) => {
    const res = await call(method, path, body);
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
    return res.body;
  };
  const type = async (name: string, schema: unknown) => {
    const id = (await admin('POST', '/content-types', { name, schema })).id as string;
    await admin('POST', `/content-types/${id}/publish`);
    return id;
  };
  const entry = async (typeId: string, name: string, content: Record<string, unknown>, publish = false) => {
    const id = (await admin('POST', '/content', { typeId, name, content })).id as string;
    if (publish) await admin('POST', `/content/${id}/publish`);
    return id;
  };
  const graphql = (query: string, auth: { token?: string; apiKey?: string }) =>
    fx.api.call('POST', '/graphql', { ...auth, body: { query } });
  const paths = (res: { body: any }) =>
    (res.body.error?.details?.errors ?? []).map((e: { path: string }) => e.path).sort();
  const ids = (res: { status: number; body: any }) => {
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return (res.body.data as { id: string }[]).map((e) => e.id).sort();
  };
  const upload = async () => {
    const body = new FormData();
    body.append('file', new Blob([new Uint8Array(PNG)], { type: 'image/png' }), 'portrait.png');
    const res = await fetch(`${fx.service.url}${app}/assets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fx.token}` },
      body,
    });
    expect(res.status).toBe(201);
    return ((await res.json()) as { id: string }).id;
  };

  beforeAll(async () => {
    pg = new Pg({ connectionString: fx.service.databaseUrl });
    await pg.connect();
    authorType = await type('Author', { type: 'object', properties: { name: { type: 'string' } } });
    articleType = await type('Article', {
      type: 'object',
      properties: {
        title: { type: 'string' },
        author: { reference: { typeIds: [authorType] } },
        related: { type: 'array', items: { reference: {} } },
        hero: { reference: { to: 'asset' } },
        sections: { type: 'array', items: { type: 'object', properties: { link: { reference: {} } } } },
      },
    });
    key = (await admin('POST', '/api-keys', { name: 'site' })).key;
    previewKey = (await admin('POST', '/api-keys', { name: 'preview', scope: 'preview' })).key;
  });
  afterAll(() => pg?.end());

  it('refuses a `reference` with other members when the type is saved (422 with the pointer)', async () => {
    const refused = await call('POST', '/content-types', {
      name: 'Broken',
      schema: {
        type: 'object',
        properties: {
          a: { reference: { typeIds: ['x'], depth: 2 } },
          b: { type: 'array', items: { reference: { to: 'entry' } } },
          c: { reference: 'any' },
          d: { reference: { typeIds: [] } },
        },
      },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe('VALIDATION_FAILED');
    expect(paths(refused)).toEqual([
      '/schema/properties/a/reference/depth',
      '/schema/properties/b/items/reference/to',
      '/schema/properties/c/reference',
      '/schema/properties/d/reference/typeIds',
    ]);
    // A property named `reference` is no keyword.
    const named = await call('POST', '/content-types', {
      name: 'Named',
      schema: { type: 'object', properties: { reference: { type: 'string' } } },
    });
    expect(named.status).toBe(201);
  });

  it('checks every reference on create and update: 422 naming the property’s pointer', async () => {
    const ada = await entry(authorType, 'Ada', { name: 'Ada' });
    const other = await entry(articleType, 'Other', { title: 'x' });
    const gone = await entry(authorType, 'Gone', { name: 'Gone' });
    await admin('DELETE', `/content/${gone}`);
    const neighbour = (
      await fx.api.call('POST', '/app/v1/organizations/default/projects', {
        token: fx.token,
        body: { name: 'Elsewhere' },
      })
    ).body;
    const foreignType = (
      await fx.api.call('POST', `/app/v1/organizations/default/projects/${neighbour.id}/content-types`, {
        token: fx.token,
        body: { name: 'Theirs', schema: { type: 'object' } },
      })
    ).body.id;
    await fx.api.call(
      'POST',
      `/app/v1/organizations/default/projects/${neighbour.id}/content-types/${foreignType}/publish`,
      {
        token: fx.token,
      },
    );
    const foreign = (
      await fx.api.call('POST', `/app/v1/organizations/default/projects/${neighbour.id}/content`, {
        token: fx.token,
        body: { typeId: foreignType, name: 'Theirs', content: {} },
      })
    ).body.id;
    expect(foreign).toBeTruthy();

    const refused = await call('POST', '/content', {
      typeId: articleType,
      name: 'Bad',
      content: {
        author: other, // an entry, but not an Author
        related: [ada, 'nothing', foreign],
        hero: ada, // an entry, not an asset
        sections: [{ link: ada }, { link: gone }],
      },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe('VALIDATION_FAILED');
    expect(paths(refused)).toEqual(['/author', '/hero', '/related/1', '/related/2', '/sections/1/link']);
    // A reference holds an id string.
    const typed = await call('POST', '/content', { typeId: articleType, name: 'Typed', content: { author: 5 } });
    expect(typed.status).toBe(422);
    expect(paths(typed)).toEqual(['/author']);

    const good = await entry(articleType, 'Good', { author: ada, related: [other, ada], sections: [{ link: other }] });
    const update = await call('PUT', `/content/${good}`, { content: { author: ada, sections: [{}, { link: 'x' }] } });
    expect(update.status).toBe(422);
    expect(paths(update)).toEqual(['/sections/1/link']);
  });

  it('rewrites the links of an edit that names other targets in the same places, and keeps those of one that does not', async () => {
    const [ada, grace] = [await entry(authorType, 'Ada L', { name: 'Ada' }), await entry(authorType, 'Grace H', {})];
    const article = await entry(articleType, 'Same shape', { title: 'a', author: ada, related: [ada] });
    const links = async () =>
      (
        await pg.query(
          `select path, target_id from content_link where from_id = $1 and scope = 'working' order by position`,
          [article],
        )
      ).rows.map((r) => `${r.path}>${r.target_id}`);
    await admin('PUT', `/content/${article}`, { content: { title: 'b', author: grace, related: [ada] } });
    expect(await links()).toEqual([`/author>${grace}`, `/related/0>${ada}`]);
    await admin('PUT', `/content/${article}`, { content: { title: 'c', author: grace, related: [ada] } });
    expect(await links()).toEqual([`/author>${grace}`, `/related/0>${ada}`]);
    await admin('PUT', `/content/${article}`, { content: { title: 'd', author: grace, related: [grace] } });
    expect(await links()).toEqual([`/author>${grace}`, `/related/0>${grace}`]);
  });

  it('refuses to delete an entry another entry references (409 CONTENT_REFERENCED), working copy or published', async () => {
    const grace = await entry(authorType, 'Grace', { name: 'Grace' }, true);
    const article = await entry(articleType, 'On compilers', { author: grace }, true);
    const draft = await entry(articleType, 'Draft about Grace', { related: [grace] });

    const refused = await call('DELETE', `/content/${grace}`);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('CONTENT_REFERENCED');
    expect([...refused.body.error.details.referencedBy].sort()).toEqual([article, draft].sort());

    // Unpublishing a referenced entry is allowed.
    expect((await call('POST', `/content/${grace}/unpublish`)).status).toBe(200);
    // The draft lets go; the article's working copy too, but its published version still references Grace.
    await admin('DELETE', `/content/${draft}`);
    await admin('PUT', `/content/${article}`, { content: { title: 'On compilers' } });
    const still = await call('DELETE', `/content/${grace}`);
    expect(still.status).toBe(409);
    expect(still.body.error.details.referencedBy).toEqual([article]);
    // Publishing the edit drops the last reference.
    await admin('POST', `/content/${article}/publish`);
    expect((await call('DELETE', `/content/${grace}`)).status).toBe(200);
    // Restoring the draft brings its link back, unchecked: the target is gone, so nothing resolves.
    await admin('POST', `/content/${draft}/restore`);
    const restored = await graphql(
      `{ content(organizationId: "default", projectId: "default", id: "${draft}") { references { id } } }`,
      { token: fx.token },
    );
    expect(restored.body).toEqual({ data: { content: { references: [] } } });
  });

  it('refuses to delete an asset an entry references, and lets it go once nothing does', async () => {
    const asset = await upload();
    const article = await entry(articleType, 'With a hero', { hero: asset });
    // GraphQL follows the reference to the asset itself (the assets subgraph resolves it), for staff and keys.
    await admin('POST', `/content/${article}/publish`);
    const assets = `{ content(organizationId: "default", projectId: "default", id: "${article}") {
      referencedAssets { id name type } } }`;
    for (const auth of [{ token: fx.token }, { apiKey: key }]) {
      const res = await graphql(assets, auth);
      expect(res.body).toEqual({
        data: { content: { referencedAssets: [{ id: asset, name: 'portrait.png', type: 'image/png' }] } },
      });
    }
    const refused = await call('DELETE', `/assets/${asset}`);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'CONTENT_REFERENCED', details: { referencedBy: [article] } });
    // The working copy lets go; the published version still holds it.
    await admin('PUT', `/content/${article}`, { content: {} });
    expect((await call('DELETE', `/assets/${asset}`)).status).toBe(409);
    await admin('POST', `/content/${article}/publish`);
    expect((await call('DELETE', `/assets/${asset}`)).status).toBe(200);
    // A deleted asset can't be referenced any more.
    const late = await call('PUT', `/content/${article}`, { content: { hero: asset } });
    expect(late.status).toBe(422);
    expect(paths(late)).toEqual(['/hero']);
  });

  it('lists referrers per family and caller: API keys see published referrers, draft edits change nothing for them', async () => {
    const linus = await entry(authorType, 'Linus', { name: 'Linus' }, true);
    const first = await entry(articleType, 'First', { author: linus }, true);
    const second = await entry(articleType, 'Second', { related: [linus, linus] }, true);
    const draftOnly = await entry(articleType, 'Draft only', { author: linus });
    const later = await entry(articleType, 'Later', {}, true);
    // A draft edit adds a reference (staff and preview see it), another removes one (keys still see it).
    await admin('PUT', `/content/${later}`, { content: { sections: [{ link: linus }] } });
    await admin('PUT', `/content/${first}`, { content: { title: 'First, edited' } });

    const staff = await call('GET', `/content/${linus}/referenced-by`);
    expect(ids(staff)).toEqual([second, draftOnly, later].sort());
    const keyAnswer = await fx.api.call('GET', `${api}/content/${linus}/referenced-by`, { apiKey: key });
    expect(ids(keyAnswer)).toEqual([first, second].sort());
    expect(keyAnswer.body.data[0]).not.toHaveProperty('compiled');
    // REST answers never carry GraphQL's `references` or `referencedBy`: the route above is REST's way to them.
    expect(staff.body.data[0]).not.toHaveProperty('references');
    expect((await call('GET', `/content/${first}`)).body).not.toHaveProperty('referencedBy');
    const preview = await fx.api.call('GET', `${api}/content/${linus}/referenced-by`, { apiKey: previewKey });
    expect(ids(preview)).toEqual([second, draftOnly, later].sort());

    // Newest first, a cursor page at a time.
    const page1 = await call('GET', `/content/${linus}/referenced-by?limit=2`);
    expect(page1.body.data.map((e: any) => e.id)).toEqual([later, draftOnly]);
    const page2 = await call('GET', `/content/${linus}/referenced-by?limit=2&lastKey=${page1.body.pagination.lastKey}`);
    expect(page2.body.data.map((e: any) => e.id)).toEqual([second]);
    expect(page2.body.pagination).toEqual({});
    expect((await call('GET', `/content/${linus}/referenced-by?limit=0`)).status).toBe(400);
    expect((await call('GET', `/content/${linus}/referenced-by?typeId=x`)).status).toBe(400);

    // An entry the key can't see has no referrers to show it.
    const hidden = await entry(authorType, 'Hidden', { name: 'Hidden' });
    expect((await fx.api.call('GET', `${api}/content/${hidden}/referenced-by`, { apiKey: key })).status).toBe(404);
    expect((await call('GET', `/content/nothing-here/referenced-by`)).status).toBe(404);

    // Unpublished referrers drop out of a key's answer.
    await admin('POST', `/content/${second}/unpublish`);
    expect(ids(await fx.api.call('GET', `${api}/content/${linus}/referenced-by`, { apiKey: key }))).toEqual([first]);
  });

  it('answers `references` and `referencedBy` in GraphQL with the caller’s visibility, in document order', async () => {
    const a = await entry(authorType, 'A', { name: 'A' }, true);
    const b = await entry(authorType, 'B', { name: 'B' }, true);
    const c = await entry(authorType, 'C', { name: 'C' });
    const article = await entry(articleType, 'Ordered', { author: b, related: [a, b, c, a] }, true);
    // A draft edit: staff see it, keys keep the published version's references.
    await admin('PUT', `/content/${article}`, { content: { related: [c] } });
    const query = `{ contents(organizationId: "default", projectId: "default", typeId: "${articleType}", limit: 100) {
      data { id references { id name } referencedBy(limit: 5) { data { id } pagination { lastKey } } } } }`;
    const byKey = await graphql(query, { apiKey: key });
    const keyRow = byKey.body.data.contents.data.find((e: any) => e.id === article);
    expect(keyRow.references.map((e: any) => e.name)).toEqual(['B', 'A']); // C is no published entry
    const byStaff = await graphql(query, { token: fx.token });
    const staffRow = byStaff.body.data.contents.data.find((e: any) => e.id === article);
    expect(staffRow.references.map((e: any) => e.name)).toEqual(['C']);
    const byPreview = await graphql(query, { apiKey: previewKey });
    expect(
      byPreview.body.data.contents.data.find((e: any) => e.id === article).references.map((e: any) => e.name),
    ).toEqual(['C']);

    const referrers = `{ content(organizationId: "default", projectId: "default", id: "${b}") {
      referencedBy { data { id } } } }`;
    expect((await graphql(referrers, { apiKey: key })).body.data.content.referencedBy.data).toEqual([{ id: article }]);
    expect((await graphql(referrers, { token: fx.token })).body.data.content.referencedBy.data).toEqual([]);
    const top = await graphql(
      `{ contentReferencedBy(organizationId: "default", projectId: "default", id: "${c}") { data { id } } }`,
      { token: fx.token },
    );
    expect(top.body.data.contentReferencedBy.data).toEqual([{ id: article }]);
  });

  it('never lets a delete and a new reference to its target both succeed; mutual references save concurrently', async () => {
    for (let round = 0; round < 8; round++) {
      const target = await entry(authorType, `Target ${round}`, { name: 't' });
      const referrer = await entry(articleType, `Referrer ${round}`, {});
      const [deleted, referenced] = await Promise.all([
        call('DELETE', `/content/${target}`),
        call('PUT', `/content/${referrer}`, { content: { author: target } }),
      ]);
      // Exactly one wins: the delete (then the reference is 422) or the reference (then the delete is 409).
      expect([deleted.status, referenced.status].sort()).toContain(200);
      expect([deleted.status, referenced.status]).not.toEqual([200, 200]);
      if (deleted.status === 200) expect(referenced.status).toBe(422);
      else expect(deleted.body.error.code).toBe('CONTENT_REFERENCED');
    }
    const a = await entry(articleType, 'Mutual A', {});
    const b = await entry(articleType, 'Mutual B', {});
    for (let round = 0; round < 5; round++) {
      const both = await Promise.all([
        call('PUT', `/content/${a}`, { content: { related: [b] } }),
        call('PUT', `/content/${b}`, { content: { related: [a] } }),
      ]);
      expect(both.map((r) => r.status)).toEqual([200, 200]);
    }
  });

  it('keeps the links table equal to the links of the documents, whatever the sequence of writes (property)', async () => {
    const schema = {
      type: 'object',
      properties: { one: { reference: {} }, many: { type: 'array', items: { reference: {} } } },
    };
    const nodeType = await type('Node', schema);
    const op = fc.oneof(
      fc.record({
        kind: fc.constant('update' as const),
        at: fc.nat(3),
        one: fc.option(fc.nat(3)),
        many: fc.array(fc.nat(3), { maxLength: 3 }),
      }),
      fc.record({
        kind: fc.constantFrom('publish', 'unpublish', 'delete', 'restore', 'discard', 'rollback'),
        at: fc.nat(3),
      }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 12 }), async (ops) => {
        const nodes: string[] = [];
        for (let i = 0; i < 4; i++) nodes.push(await entry(nodeType, `Node ${i}`, {}));
        for (const step of ops) {
          const id = nodes[step.at];
          if (step.kind === 'update') {
            const content: Record<string, unknown> = { many: step.many.map((n) => nodes[n]) };
            if (step.one !== null) content.one = nodes[step.one];
            const res = await call('PUT', `/content/${id}`, { content });
            expect([200, 409, 422]).toContain(res.status);
          } else if (step.kind === 'rollback') {
            expect([200, 404, 409, 422]).toContain(
              (await call('POST', `/content/${id}/rollback`, { version: 1 })).status,
            );
          } else if (step.kind === 'delete') {
            expect([200, 409]).toContain((await call('DELETE', `/content/${id}`)).status);
          } else {
            expect([200, 409]).toContain((await call('POST', `/content/${id}/${step.kind}`)).status);
          }
        }
        const refs = (doc: any): string[] => [
          ...(typeof doc?.one === 'string' ? [doc.one] : []),
          ...(Array.isArray(doc?.many) ? doc.many : []),
        ];
        const stored = async (scope: string) =>
          (
            await pg.query(
              `select from_id, target_id from content_link where scope = $1 and from_id = any($2) order by from_id, position`,
              [scope, nodes],
            )
          ).rows.map((r) => `${r.from_id}>${r.target_id}`);
        const working = (
          await pg.query(`select id, content from content where id = any($1) and status <> 'deleted' order by id`, [
            nodes,
          ])
        ).rows.flatMap((r) => refs(r.content).map((t) => `${r.id}>${t}`));
        const published = (
          await pg.query(`select id, content from published_content where id = any($1) order by id`, [nodes])
        ).rows;
        expect(await stored('working')).toEqual(working);
        expect(await stored('published')).toEqual(published.flatMap((r) => refs(r.content).map((t) => `${r.id}>${t}`)));
        // A key's referenced-by is a recomputation from the published versions only.
        for (const target of nodes) {
          const res = await fx.api.call('GET', `${api}/content/${target}/referenced-by?limit=100`, { apiKey: key });
          if (!published.some((r) => r.id === target)) {
            expect(res.status).toBe(404);
            continue;
          }
          const expected = published.filter((r) => refs(r.content).includes(target)).map((r) => r.id);
          expect(ids(res)).toEqual(expected.sort());
        }
        // Every entry that is referenced (and not by itself alone) refuses to be deleted.
        for (const target of nodes) {
          const referrers = await pg.query(
            `select 1 from content_link where target_id = $1 and from_id <> $1 limit 1`,
            [target],
          );
          const status = (await pg.query(`select status from content where id = $1`, [target])).rows[0].status;
          if (referrers.rowCount && status !== 'deleted')
            expect((await call('DELETE', `/content/${target}`)).status).toBe(409);
        }
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });
});
