// Black-box: asset upload (multipart, sniffed type, checksum, limit) and CDN delivery (ETag, Range, safe headers).
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT } from './support/client';
import type { TestService } from './support/service';
import { useService } from './support/setup';

// A valid 1×1 PNG.
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d4948445200000001000000010806000000' +
    '1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082',
  'hex',
);

function form(
  file: Buffer,
  filename: string,
  fields: Record<string, string> = {},
  clientType = 'text/plain',
): FormData {
  const body = new FormData();
  for (const [k, v] of Object.entries(fields)) body.append(k, v);
  body.append('file', new Blob([new Uint8Array(file)], { type: clientType }), filename);
  return body;
}

async function upload(
  service: TestService,
  token: string,
  body: FormData | ReadableStream,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${service.url}/app/v1${PROJECT}/assets`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, ...headers },
    body,
    duplex: 'half',
  } as RequestInit);
  return { status: res.status, body: await res.json() };
}

const rssKb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);

describe('assets and CDN', () => {
  const fx = useService();

  it('uploads with a sniffed type, sha256 checksum and CDN url; GET answers the same object', async () => {
    const res = await upload(
      fx.service,
      fx.token,
      form(PNG, 'pixel.png', { tags: 'hero,red', metadata: '{"alt":"A pixel"}' }),
    );
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'pixel.png',
      type: 'image/png',
      size: PNG.length,
      checksum: createHash('sha256').update(PNG).digest('hex'),
      status: 'active',
      tags: ['hero', 'red'],
      metadata: { alt: 'A pixel' },
      folderId: null,
    });
    expect(res.body.url).toBe(`${fx.service.url}/cdn/default/default/assets/${res.body.id}/pixel.png`);
    const got = await fx.api.call('GET', `/app/v1${PROJECT}/assets/${res.body.id}`, { token: fx.token });
    expect(got.body).toEqual(res.body);
  });

  it('serves bytes from the CDN with a strong ETag, 304, Range and immutable caching', async () => {
    const { body: asset } = await upload(fx.service, fx.token, form(PNG, 'a.png'));
    const res = await fetch(asset.url);
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(PNG)).toBe(true);
    expect(res.headers.get('etag')).toBe(`"${asset.checksum}"`);
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-type')).toBe('image/png');

    const notModified = await fetch(asset.url, { headers: { 'if-none-match': `"${asset.checksum}"` } });
    expect(notModified.status).toBe(304);
    const range = await fetch(asset.url, { headers: { range: 'bytes=0-9' } });
    expect(range.status).toBe(206);
    expect(range.headers.get('content-range')).toBe(`bytes 0-9/${PNG.length}`);
    expect(Buffer.from(await range.arrayBuffer()).equals(PNG.subarray(0, 10))).toBe(true);
  });

  it('downloads active types instead of rendering them, and sanitizes file names', async () => {
    const html = Buffer.from('<!DOCTYPE html><script>alert(1)</script>');
    const { body: asset } = await upload(fx.service, fx.token, form(html, '../../etc/evil.html', {}, 'image/png'));
    expect(asset.type).toBe('text/html');
    expect(asset.name).toBe('evil.html');
    const res = await fetch(asset.url);
    expect(res.headers.get('content-disposition')).toMatch(/^attachment;/);
    const svg = await upload(
      fx.service,
      fx.token,
      form(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script/></svg>'), 'x.svg'),
    );
    expect(svg.body.type).toBe('image/svg+xml');
    expect((await fetch(svg.body.url)).headers.get('content-disposition')).toMatch(/^attachment;/);
  });

  it('lists with filters, updates metadata, and soft-deletes (CDN then 404)', async () => {
    const { body: a } = await upload(fx.service, fx.token, form(PNG, 'list.png', { tags: 'only-here' }));
    const byTag = await fx.api.call('GET', `/app/v1${PROJECT}/assets?tag=only-here`, { token: fx.token });
    expect(byTag.body.data.map((x: { id: string }) => x.id)).toEqual([a.id]);
    const images = await fx.api.call('GET', `/app/v1${PROJECT}/assets?type=image/*&limit=100`, { token: fx.token });
    expect(images.body.data.every((x: { type: string }) => x.type.startsWith('image/'))).toBe(true);

    const renamed = await fx.api.call('PUT', `/app/v1${PROJECT}/assets/${a.id}`, {
      token: fx.token,
      body: { name: 'renamed.png', tags: ['x'] },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'renamed.png', tags: ['x'], checksum: a.checksum });

    const deleted = await fx.api.call('DELETE', `/app/v1${PROJECT}/assets/${a.id}`, { token: fx.token });
    expect(deleted.body.status).toBe('deleted');
    expect((await fetch(renamed.body.url)).status).toBe(404);

    const gql = await fx.api.graphql(
      `{ assets(organizationId: "default", projectId: "default", tag: "x") { data { id url status } } }`,
      {},
      { token: fx.token },
    );
    expect(gql.body.data.assets.data).toEqual([{ id: a.id, url: renamed.body.url, status: 'deleted' }]);
  });

  it('serves no asset of a deleted project from the CDN, original or variant', async () => {
    const project = await fx.api.call('POST', '/app/v1/organizations/default/projects', {
      token: fx.token,
      body: { name: `cdn-${Date.now()}` },
    });
    const res = await fetch(`${fx.service.url}/app/v1/organizations/default/projects/${project.body.id}/assets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fx.token}` },
      body: form(PNG, 'gone.png'),
    });
    const asset = await res.json();
    expect(res.status).toBe(201);
    const removed = await fx.api.call('DELETE', `/app/v1/organizations/default/projects/${project.body.id}`, {
      token: fx.token,
    });
    expect(removed.status).toBe(200);
    for (const url of [asset.url, `${asset.url}?w=33&fm=webp`]) {
      const cdn = await fetch(url);
      expect(cdn.status, url).toBe(404);
      expect((await cdn.json()).error.code).toBe('NOT_FOUND');
    }
  });

  it('refuses bad uploads with the envelope: no file 422, not multipart 400, no token 401', async () => {
    const none = new FormData();
    none.append('tags', 'x');
    expect((await upload(fx.service, fx.token, none)).body.error).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { errors: [{ path: '/file' }] },
    });
    const json = await fx.api.call('POST', `/app/v1${PROJECT}/assets`, { token: fx.token, body: { file: 'x' } });
    expect(json.status).toBe(400);
    const anonymous = await fetch(`${fx.service.url}/app/v1${PROJECT}/assets`, {
      method: 'POST',
      body: form(PNG, 'a.png'),
    });
    expect(anonymous.status).toBe(401);
  });

  it('refuses a 60 MiB upload with 413, stores nothing, and keeps memory flat', async () => {
    const before = rssKb(fx.service.child.pid!);
    const chunk = Buffer.alloc(1024 * 1024, 7);
    let sent = 0;
    const boundary = 'cpboundary';
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0)
          controller.enqueue(
            Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n\r\n`),
          );
        if (sent < 60) {
          controller.enqueue(chunk);
          sent++;
        } else {
          controller.enqueue(Buffer.from(`\r\n--${boundary}--\r\n`));
          controller.close();
        }
      },
    });
    const res = await upload(fx.service, fx.token, stream, {
      'content-type': `multipart/form-data; boundary=${boundary}`,
    });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(rssKb(fx.service.child.pid!) - before).toBeLessThan(40 * 1024);
    const storage = join(fx.service.env.DATA_DIR, 'assets', 'default', 'default');
    const leftovers = existsSync(storage) ? readdirSync(storage).filter((f) => f.startsWith('.upload-')) : [];
    expect(leftovers).toEqual([]);
  });
});
