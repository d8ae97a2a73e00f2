// Black-box: components, packages and component assets over REST and GraphQL.
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PROJECT } from './support/client';
import { useService } from './support/setup';

const source = (title: string, props = 'title: string;') => `
/** Props. */
export interface Props { ${props} }
export function metadata() { return { title: '${title}', description: 'About ${title}' }; }
export default function render(props: Props) { return '<h1>' + String((props as any).title) + '</h1>'; }
`;
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d4948445200000001000000010806000000' +
    '1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082',
  'hex',
);

describe('components, packages and component assets', () => {
  const fx = useService();
  const base = `/app/v1${PROJECT}`;

  it('creates components (201) and refuses bad input with 400 and a field map', async () => {
    const created = await fx.api.call('POST', `${base}/components`, {
      token: fx.token,
      body: { name: 'Hero', type: 'view', content: source('Hero') },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'Hero',
      type: 'view',
      status: 'draft',
      version: null,
      title: 'Hero',
      description: 'About Hero',
    });
    expect(created.body.compiled).toEqual(expect.any(String));

    const badType = await fx.api.call('POST', `${base}/components`, {
      token: fx.token,
      body: { name: 'X', type: 'widget', content: source('X') },
    });
    expect(badType.status).toBe(400);
    expect(badType.body.error).toMatchObject({ code: 'BAD_REQUEST', details: { type: expect.any(String) } });
    const broken = await fx.api.call('POST', `${base}/components`, {
      token: fx.token,
      body: { name: 'Broken', type: 'view', content: 'export const = ;' },
    });
    expect(broken.status).toBe(400);
    expect(broken.body.error.details.content).toEqual(expect.any(String));
    const taken = await fx.api.call('POST', `${base}/components`, {
      token: fx.token,
      body: { name: 'Hero', type: 'layout', content: source('Hero') },
    });
    expect(taken.status).toBe(409);
    const hero = (await fx.api.call('GET', `${base}/components?limit=100`, { token: fx.token })).body.data.find(
      (c: { name: string }) => c.name === 'Hero',
    );
    const long = await fx.api.call('PUT', `${base}/components/${hero.id}`, {
      token: fx.token,
      body: { name: 'x'.repeat(300) },
    });
    expect([long.status, long.body.error.details]).toEqual([400, { name: 'must be at most 255 characters' }]);
  });

  it('keeps serving others while an endless metadata() is stopped in the sandbox', async () => {
    let running = true;
    const endless = fx.api
      .call('POST', `${base}/components`, {
        token: fx.token,
        body: {
          name: 'Endless',
          type: 'view',
          // Allocating on every turn: slower per unit of the sandbox's CPU budget than an empty loop, so the call
          // lasts long enough (a few hundred milliseconds) for health checks to show the event loop free meanwhile.
          content:
            'export function metadata() { const xs = []; while (true) { xs.push({ n: xs.length }); if (xs.length > 1000) xs.length = 0; } }\nexport default () => "";',
        },
      })
      .finally(() => (running = false));
    // Health checks one after another for as long as the endless call is in flight, the first sent with it: the
    // sandbox stops the call after its CPU budget. A blocked event loop would answer none of them before the endless
    // call's own answer.
    const answeredMeanwhile: number[] = [];
    const health = (async () => {
      while (running) {
        const res = await fx.api.call('GET', '/health');
        if (running) answeredMeanwhile.push(res.status);
      }
    })();
    const [res] = await Promise.all([endless, health]);
    expect(res.status).toBe(400);
    expect(res.body.error.details.content).toMatch(/longer than/);
    expect(answeredMeanwhile.length).toBeGreaterThan(0);
    expect(answeredMeanwhile.every((status) => status === 200)).toBe(true);
  });

  it('publishes packages, lists and resolves them, and protects referenced components', async () => {
    const pkg = await fx.api.call('POST', `${base}/packages`, { token: fx.token, body: { description: 'first' } });
    expect(pkg.status).toBe(201);
    expect(pkg.body).toMatchObject({
      version: '1.0.0',
      description: 'first',
      components: [{ name: 'Hero', version: 1 }],
    });
    expect(pkg.body.createdBy).toEqual(expect.any(String));
    const again = await fx.api.call('POST', `${base}/packages`, { token: fx.token });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('NOTHING_TO_PUBLISH');

    const list = await fx.api.call('GET', `${base}/packages`, { token: fx.token });
    expect(list.body.data.map((p: { version: string }) => p.version)).toEqual(['1.0.0']);
    const resolved = await fx.api.call('GET', `${base}/packages/1.0.0/resolved`, { token: fx.token });
    expect(resolved.status).toBe(200);
    expect(resolved.body.components[0]).toMatchObject({
      name: 'Hero',
      version: 1,
      compiled: expect.any(String),
      schema: expect.any(Object),
    });

    const hero = pkg.body.components[0];
    const del = await fx.api.call('DELETE', `${base}/components/${hero.id}`, { token: fx.token });
    expect(del.status).toBe(409);
    expect(del.body.error).toMatchObject({ code: 'COMPONENT_IN_USE', details: { packages: ['1.0.0'] } });
    const versions = await fx.api.call('GET', `${base}/components/${hero.id}/versions`, { token: fx.token });
    expect(versions.body).toEqual({
      data: [expect.objectContaining({ version: 1, status: 'published', createdBy: expect.any(String) })],
    });
    const discard = await fx.api.call('POST', `${base}/components/${hero.id}/discard`, { token: fx.token });
    expect(discard.status).toBe(409);
    expect(discard.body.error.details).toEqual({ currentStatus: 'published', requestedStatus: 'published' });
  });

  it('leaves no processing row and no stored bytes behind when the fields of an upload are refused', async () => {
    const card = (
      await fx.api.call('POST', `${base}/components`, {
        token: fx.token,
        body: { name: 'Refused upload', type: 'view', content: source('Refused') },
      })
    ).body;
    const files = () =>
      readdirSync(fx.service.env.DATA_DIR, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length;
    const before = files();
    const form = new FormData();
    form.append('file', new Blob([PNG]), 'icon.png');
    form.append('metadata', '{"a":"\\u0000"}');
    const res = await fetch(`${fx.service.url}${base}/components/${card.id}/assets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fx.token}` },
      body: form,
    });
    expect(res.status).toBe(400);
    const assets = (await fx.api.call('GET', `${base}/components/${card.id}/assets`, { token: fx.token })).body;
    expect(assets.map((a: { status: string }) => a.status).filter((s: string) => s === 'processing')).toEqual([]);
    expect(files()).toBe(before);
  });

  it('attaches files to a component, serves them, and guards their status (ASSET_IN_USE, INVALID_STATUS)', async () => {
    const card = (
      await fx.api.call('POST', `${base}/components`, {
        token: fx.token,
        body: { name: 'Card', type: 'view', content: source('Card') },
      })
    ).body;
    const form = new FormData();
    form.append('file', new Blob([PNG]), 'icon.png');
    const res = await fetch(`${fx.service.url}${base}/components/${card.id}/assets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fx.token}` },
      body: form,
    });
    expect(res.status).toBe(201);
    const asset: any = await res.json();
    expect(asset).toMatchObject({
      componentId: card.id,
      name: 'icon.png',
      type: 'image/png',
      size: PNG.length,
      status: 'active',
    });
    expect(Buffer.from(await (await fetch(asset.url)).arrayBuffer()).equals(PNG)).toBe(true);

    const status = (s: string) =>
      fx.api.call('POST', `${base}/components/${card.id}/assets/${asset.id}/status`, {
        token: fx.token,
        body: { status: s },
      });
    expect((await status('deleted')).body.status).toBe('deleted');
    expect((await fetch(asset.url)).status).toBe(404);
    expect((await status('active')).body.status).toBe('active');
    const invalid = await status('processing');
    expect(invalid.status).toBe(422);
    expect(invalid.body.error.code).toBe('INVALID_STATUS');

    const pkg = await fx.api.call('POST', `${base}/packages`, { token: fx.token });
    expect(pkg.body.version).not.toBe('1.0.0');
    const inUse = await status('deleted');
    expect(inUse.status).toBe(409);
    expect(inUse.body.error).toMatchObject({ code: 'ASSET_IN_USE', details: { packages: [pkg.body.version] } });

    const listed = await fx.api.graphql(
      `query($id: ID!) { componentAssets(organizationId: "default", projectId: "default", componentId: $id) { id status url } }`,
      { id: card.id },
      { token: fx.token },
    );
    expect(listed.body.data.componentAssets).toEqual([{ id: asset.id, status: 'active', url: asset.url }]);
  });
});
