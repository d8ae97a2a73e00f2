// Black-box: image transformations on the CDN — parameters, headers, stored variants, one computation, limits.
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import fc from 'fast-check';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, PROJECT } from './support/client';
import { startService, type TestService } from './support/service';

const RUNS = Number(process.env.FC_RUNS ?? 30);
const SEED = Number(process.env.FC_SEED ?? 20261125);
const METRICS_TOKEN = 'metrics-token-images-0123456789';
const FITS = ['cover', 'contain', 'fill', 'inside', 'outside'] as const;
const FORMATS = ['png', 'jpeg', 'webp', 'avif', 'auto'] as const;
const SOURCE_FORMATS = ['png', 'jpeg', 'webp', 'avif', 'gif'] as const;
type SourceFormat = (typeof SOURCE_FORMATS)[number];

interface Asset {
  id: string;
  url: string;
  checksum: string;
  type: string;
}

/** A deterministic test picture: a colour gradient (with an alpha ramp for formats that keep it). */
function picture(width: number, height: number, format: SourceFormat): Promise<Buffer> {
  const pixels = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      pixels.set([(x * 255) / width, (y * 255) / height, ((x + y) * 97) % 256, 128 + (x * 127) / width], i);
    }
  }
  return sharp(pixels, { raw: { width, height, channels: 4 } })
    .toFormat(format)
    .toBuffer();
}

/** A PNG whose header claims `width`×`height` but that carries almost no pixel data: a decompression bomb's shape. */
function pngClaiming(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const signature = Buffer.from('89504e470d0a1a0a', 'hex');
  const pixels = chunk('IDAT', deflateSync(Buffer.alloc(64)));
  return Buffer.concat([signature, chunk('IHDR', header), pixels, chunk('IEND', Buffer.alloc(0))]);
}

async function upload(service: TestService, token: string, file: Buffer, filename: string): Promise<Asset> {
  const body = new FormData();
  body.append('file', new Blob([new Uint8Array(file)]), filename);
  const headers = { authorization: `Bearer ${token}` };
  const res = await fetch(`${service.url}/app/v1${PROJECT}/assets`, { method: 'POST', headers, body });
  expect(res.status).toBe(201);
  return (await res.json()) as Asset;
}

async function get(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers });
  const bytes = Buffer.from(await res.arrayBuffer());
  const isJson = res.headers.get('content-type')?.startsWith('application/json');
  const json = isJson ? JSON.parse(bytes.toString()) : undefined;
  return { status: res.status, headers: res.headers, bytes, json };
}

/** Image variants computed by the service so far (the counter behind `/metrics`). */
async function computations(service: TestService): Promise<number> {
  const res = await fetch(`${service.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  const counts = (await res.text()).matchAll(/^cp_image_transformations_total\{[^}]*\} (\d+)/gm);
  return [...counts].reduce((sum, m) => sum + Number(m[1]), 0);
}

const variantsDir = (service: TestService, asset: Asset) =>
  join(service.env.DATA_DIR, 'assets', 'default', 'default', `${asset.id}.variants`);
/** Stored variant files (not the temporary files of writes in progress). */
const storedVariants = (service: TestService, asset: Asset) =>
  existsSync(variantsDir(service, asset))
    ? readdirSync(variantsDir(service, asset)).filter((f) => !f.startsWith('.'))
    : [];

const variesOnAccept = (vary: string | null) =>
  (vary ?? '').split(',').some((v) => v.trim().toLowerCase() === 'accept');

const withQuery = (url: string, params: [string, string][]) => `${url}?${new URLSearchParams(params)}`;

describe('image transformations on the CDN', () => {
  let service: TestService;
  let api: Client;
  let token: string;
  const sources = {} as Record<SourceFormat, { asset: Asset; width: number; height: number }>;

  beforeAll(async () => {
    // One transformation at a time and one waiting: the queue-full test needs a small queue; the others don't mind.
    const env = { METRICS_TOKEN, IMAGE_TRANSFORM_CONCURRENCY: '1', IMAGE_TRANSFORM_QUEUE: '1', EMBEDDINGS: 'off' };
    service = await startService({ env });
    api = new Client(service.url);
    token = await api.login();
    for (const [i, format] of SOURCE_FORMATS.entries()) {
      const [width, height] = [60 + i * 7, 40 + i * 3];
      const asset = await upload(service, token, await picture(width, height, format), `source.${format}`);
      sources[format] = { asset, width, height };
    }
  });
  afterAll(() => service?.destroy());

  it('answers every valid parameter combination with an image of the requested format and size', async () => {
    const dimension = fc.option(fc.integer({ min: 1, max: 120 }), { nil: undefined });
    const params = fc.record(
      {
        w: dimension,
        h: dimension,
        fit: fc.constantFrom(...FITS),
        fm: fc.constantFrom(...FORMATS),
        q: fc.integer({ min: 1, max: 100 }),
      },
      { requiredKeys: [] },
    );
    const accept = fc.constantFrom(
      'image/avif,image/webp,*/*',
      'image/webp,*/*;q=0.8',
      '*/*',
      'image/avif;q=0,image/webp',
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...SOURCE_FORMATS), params, accept, async (sourceFormat, p, acceptHeader) => {
        const source = sources[sourceFormat];
        const entries = Object.entries(p)
          .filter(([, v]) => v !== undefined)
          .map(([k, v]) => [k, String(v)] as [string, string]);
        const res = await get(withQuery(source.asset.url, entries), { accept: acceptHeader });
        if (entries.length === 0) {
          expect(res.headers.get('etag')).toBe(`"${source.asset.checksum}"`);
          return;
        }
        expect(res.status, res.bytes.toString().slice(0, 300)).toBe(200);
        const negotiated = acceptHeader.startsWith('image/avif,')
          ? 'avif'
          : acceptHeader.includes('image/webp')
            ? 'webp'
            : sourceFormat;
        const expected = p.fm === 'auto' ? negotiated : (p.fm ?? sourceFormat);
        const meta = await sharp(res.bytes).metadata();
        expect(meta.format === 'heif' ? 'avif' : meta.format).toBe(expected);
        expect(res.headers.get('content-type')).toBe(`image/${expected}`);
        expect(variesOnAccept(res.headers.get('vary'))).toBe(p.fm === 'auto');
        expect(res.headers.get('etag')).toMatch(/^"[0-9a-f]{64}"$/);
        expect(res.headers.get('etag')).not.toBe(`"${source.asset.checksum}"`);
        expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
        expect(res.headers.get('x-content-type-options')).toBe('nosniff');
        const { width, height } = meta as { width: number; height: number };
        const fit = p.fit ?? 'inside';
        if (p.w && p.h) {
          const touches = width === p.w || height === p.h;
          if (fit === 'inside') expect(width <= p.w && height <= p.h && touches).toBe(true);
          else if (fit === 'outside') expect(width >= p.w && height >= p.h && touches).toBe(true);
          else expect([width, height]).toEqual([p.w, p.h]);
        } else if (p.w) expect(width).toBe(p.w);
        else if (p.h) expect(height).toBe(p.h);
        else expect([width, height]).toEqual([source.width, source.height]);
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it('refuses every unknown, repeated or out-of-range parameter with 400 naming it', async () => {
    const valid: Record<string, fc.Arbitrary<string>> = {
      w: fc.integer({ min: 1, max: 4000 }).map(String),
      h: fc.integer({ min: 1, max: 4000 }).map(String),
      fit: fc.constantFrom(...FITS),
      fm: fc.constantFrom(...FORMATS),
      q: fc.integer({ min: 1, max: 100 }).map(String),
    };
    const badInteger = (max: number) =>
      fc.oneof(
        fc.integer({ min: -5, max: 0 }).map(String),
        fc.integer({ min: max + 1, max: 10 ** 7 }).map(String),
        fc.constantFrom('', '08', '+5', '1.5', '1e3', ' 7', 'abc', '0x10', `${max}.0`),
      );
    const bad: Record<string, fc.Arbitrary<string>> = {
      w: badInteger(4000),
      h: badInteger(4000),
      q: badInteger(100),
      fit: fc.string().filter((s) => !(FITS as readonly string[]).includes(s)),
      fm: fc.string().filter((s) => !(FORMATS as readonly string[]).includes(s)),
    };
    const entry = (values: Record<string, fc.Arbitrary<string>>, repeated: boolean) =>
      fc.constantFrom(...Object.keys(values)).chain((name) => values[name].map((value) => ({ name, value, repeated })));
    const unknown = fc
      .string({ minLength: 1 })
      .filter((name) => !(name in valid))
      .map((name) => ({ name, value: '1', repeated: false }));
    const invalid = fc.oneof(entry(bad, false), unknown, entry(valid, true));
    const others = fc
      .subarray(Object.keys(valid))
      .chain((names) => fc.tuple(...names.map((n) => valid[n].map((v) => [n, v] as [string, string]))));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...SOURCE_FORMATS), invalid, others, async (sourceFormat, bad, rest) => {
        const entries = rest.filter(([n]) => n !== bad.name);
        entries.push([bad.name, bad.value]);
        if (bad.repeated) entries.push([bad.name, bad.value]);
        const res = await get(withQuery(sources[sourceFormat].asset.url, entries));
        expect(res.status).toBe(400);
        expect(res.json.error).toMatchObject({ code: 'BAD_REQUEST', details: { parameter: bad.name } });
      }),
      { numRuns: RUNS * 3, seed: SEED },
    );
    // The bounds themselves are valid (a 1×4000 strip is cheap to make).
    const bounds: [string, string][] = [
      ['w', '1'],
      ['h', '4000'],
      ['fit', 'fill'],
      ['q', '100'],
    ];
    const edge = await get(withQuery(sources.png.asset.url, bounds));
    expect(edge.status).toBe(200);
    expect(await sharp(edge.bytes).metadata()).toMatchObject({ width: 1, height: 4000 });
  });

  it('gives a variant its own strong ETag, 304 on If-None-Match, and byte ranges of the variant', async () => {
    const url = withQuery(sources.jpeg.asset.url, [
      ['w', '30'],
      ['fm', 'webp'],
    ]);
    const full = await get(url);
    const etag = full.headers.get('etag')!;
    expect(full.status).toBe(200);
    const notModified = await get(url, { 'if-none-match': etag });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get('etag')).toBe(etag);
    expect((await get(url, { 'if-none-match': `"${sources.jpeg.asset.checksum}"` })).status).toBe(200);
    const range = await get(url, { range: 'bytes=4-19' });
    expect(range.status).toBe(206);
    expect(range.headers.get('content-range')).toBe(`bytes 4-19/${full.bytes.length}`);
    expect(range.bytes.equals(full.bytes.subarray(4, 20))).toBe(true);
    expect(range.headers.get('etag')).toBe(etag);
  });

  it('negotiates fm=auto from Accept, says Vary: Accept, and gives each negotiated format its own ETag', async () => {
    const url = withQuery(sources.jpeg.asset.url, [
      ['w', '25'],
      ['fm', 'auto'],
    ]);
    const answers = [];
    // One after another: the service under test runs one transformation at a time with one waiting.
    for (const accept of ['image/avif,image/webp,*/*', 'image/webp,*/*', 'text/html,*/*']) {
      answers.push(await get(url, { accept }));
    }
    expect(answers.map((a) => a.headers.get('content-type'))).toEqual(['image/avif', 'image/webp', 'image/jpeg']);
    for (const a of answers) expect(variesOnAccept(a.headers.get('vary'))).toBe(true);
    expect(new Set(answers.map((a) => a.headers.get('etag'))).size).toBe(3);
    const revalidated = await get(url, { accept: 'image/webp', 'if-none-match': answers[1].headers.get('etag')! });
    expect(revalidated.status).toBe(304);
    expect(variesOnAccept(revalidated.headers.get('vary'))).toBe(true);
    // An explicit format never varies.
    const explicit = await get(
      withQuery(sources.jpeg.asset.url, [
        ['w', '25'],
        ['fm', 'webp'],
      ]),
    );
    expect(variesOnAccept(explicit.headers.get('vary'))).toBe(false);
  });

  it('answers the same bytes for the same URL, even when the stored variant has to be computed again', async () => {
    const asset = await upload(service, token, await picture(90, 70, 'jpeg'), 'again.jpg');
    const url = withQuery(asset.url, [
      ['w', '40'],
      ['h', '40'],
      ['fit', 'cover'],
      ['fm', 'avif'],
      ['q', '55'],
    ]);
    const first = await get(url);
    const second = await get(url);
    expect(second.bytes.equals(first.bytes)).toBe(true);
    rmSync(variantsDir(service, asset), { recursive: true });
    const recomputed = await get(url);
    expect(recomputed.bytes.equals(first.bytes)).toBe(true);
    expect(recomputed.headers.get('etag')).toBe(first.headers.get('etag'));
    // Parameters that cannot change the result name the same variant: `fit` without both sides, `q` for PNG.
    const a = await get(withQuery(asset.url, [['w', '33']]));
    const b = await get(
      withQuery(asset.url, [
        ['fit', 'cover'],
        ['w', '33'],
      ]),
    );
    expect(b.headers.get('etag')).toBe(a.headers.get('etag'));
    expect(b.bytes.equals(a.bytes)).toBe(true);
  });

  it('computes a new variant once for 20 concurrent requests, and stores it once', async () => {
    const asset = await upload(service, token, await picture(1600, 1200, 'jpeg'), 'busy.jpg');
    const before = await computations(service);
    const url = withQuery(asset.url, [
      ['w', '1000'],
      ['fm', 'webp'],
    ]);
    const answers = await Promise.all(Array.from({ length: 20 }, () => get(url)));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    for (const a of answers) expect(a.bytes.equals(answers[0].bytes)).toBe(true);
    expect((await computations(service)) - before).toBe(1);
    expect(storedVariants(service, asset)).toHaveLength(1);
  });

  it('refuses with 503 and Retry-After when the transformation queue is full; the URL works later', async () => {
    const asset = await upload(service, token, await picture(1600, 1200, 'jpeg'), 'flood.jpg');
    const urls = Array.from({ length: 6 }, (_, i) =>
      withQuery(asset.url, [
        ['w', String(600 + i)],
        ['fm', 'webp'],
      ]),
    );
    const answers = await Promise.all(urls.map((url) => get(url)));
    const refused = answers.filter((a) => a.status === 503);
    expect(refused.length).toBeGreaterThan(0);
    expect(answers.every((a) => a.status === 200 || a.status === 503)).toBe(true);
    for (const a of refused) {
      expect(Number(a.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(a.json.error.code).toBe('UNAVAILABLE');
      expect(a.headers.get('cache-control') ?? '').not.toMatch(/immutable/);
    }
    const later = await get(urls[answers.indexOf(refused[0])]);
    expect(later.status).toBe(200);
    expect((await sharp(later.bytes).metadata()).width).toBe(600 + answers.indexOf(refused[0]));
  });

  it('removes the variants when the asset is deleted', async () => {
    const asset = await upload(service, token, await picture(50, 50, 'png'), 'gone.png');
    const urls = [withQuery(asset.url, [['w', '10']]), withQuery(asset.url, [['fm', 'webp']])];
    for (const url of urls) expect((await get(url)).status).toBe(200);
    expect(storedVariants(service, asset)).toHaveLength(2);
    expect((await api.call('DELETE', `/app/v1${PROJECT}/assets/${asset.id}`, { token })).status).toBe(200);
    expect(existsSync(variantsDir(service, asset))).toBe(false);
    for (const url of urls) expect((await get(url)).status).toBe(404);
  });

  it('refuses a source over 50 megapixels from its header (422 with the limit), and results over it', async () => {
    const bomb = await upload(service, token, pngClaiming(10_000, 10_000), 'bomb.png');
    expect(bomb.type).toBe('image/png');
    const before = await computations(service);
    const res = await get(withQuery(bomb.url, [['w', '100']]));
    expect(res.status).toBe(422);
    const details = { limit: 50_000_000, width: 10_000, height: 10_000 };
    expect(res.json.error).toMatchObject({ code: 'VALIDATION_FAILED', details });
    expect(await computations(service)).toBe(before);
    expect((await get(bomb.url)).status).toBe(200);
    // A thin strip scaled to 4000 wide keeps its aspect ratio: 4000 × 1,600,000 would be far over the limit.
    const strip = await upload(service, token, await picture(1, 400, 'png'), 'strip.png');
    const wide = await get(withQuery(strip.url, [['w', '4000']]));
    expect(wide.status).toBe(422);
    expect(wide.json.error.details.limit).toBe(50_000_000);
  });

  it('refuses transform parameters on SVG and non-image assets with 400; serves them without parameters', async () => {
    const drawing = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>';
    const svg = await upload(service, token, Buffer.from(drawing), 'a.svg');
    const text = await upload(service, token, Buffer.from('plain words'), 'a.txt');
    expect([svg.type, text.type]).toEqual(['image/svg+xml', 'text/plain']);
    for (const asset of [svg, text]) {
      const res = await get(withQuery(asset.url, [['w', '5']]));
      expect(res.status).toBe(400);
      expect(res.json.error).toMatchObject({ code: 'BAD_REQUEST', details: { parameter: 'w' } });
      expect((await get(asset.url)).status).toBe(200);
    }
  });

  it('lets a second replica on the same storage serve a stored variant without computing it', async () => {
    const asset = await upload(service, token, await picture(80, 60, 'png'), 'shared.png');
    const url = withQuery(asset.url, [
      ['w', '20'],
      ['fm', 'jpeg'],
    ]);
    const first = await get(url);
    const replica = await startService({
      databaseUrl: service.databaseUrl,
      dataDir: service.env.DATA_DIR,
      env: { METRICS_TOKEN, EMBEDDINGS: 'off' },
    });
    try {
      const other = await get(url.replace(service.url, replica.url));
      expect(other.status).toBe(200);
      expect(other.bytes.equals(first.bytes)).toBe(true);
      expect(other.headers.get('etag')).toBe(first.headers.get('etag'));
      expect(await computations(replica)).toBe(0);
    } finally {
      await replica.stop();
    }
  });
});
