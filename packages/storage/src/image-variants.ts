// Transformed images: each variant computed once across replicas, stored beside its original, under a bounded work queue.
import { AppError, UnavailableError, ValidationFailedError } from '@cp/errors';
import { counter } from '@cp/metrics';
import { setTimeout as sleep } from 'node:timers/promises';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import type Sharp from 'sharp';
import type { Deliverable } from './deliver';
import { FORMAT_TYPES, variantId, type ImageTransform } from './image-params';
import { StorageFullError, type AssetStorage } from './storage';

/** Sources above this are refused from their header, before any pixel is decoded; results above it are refused too. */
export const MAX_IMAGE_PIXELS = 50_000_000;

const transformations = counter(
  'cp_image_transformations_total',
  'Image variants computed and stored (a variant found in storage or being computed already is not counted).',
  ['format'],
);

/**
 * Who computes a variant, across every replica sharing the store: `acquire` is true for exactly one caller at a time
 * (until it releases the lease, or a holder that crashed lets it lapse).
 */
export interface VariantLease {
  acquire(key: string): Promise<boolean>;
  release(key: string): Promise<void>;
}

/** How long a request waits for another replica's computation before answering 503 with Retry-After. */
const WAIT_FOR_OTHER_MS = 30_000;

export interface ImageTransformOptions {
  /** Transformations running at once in this process. */
  concurrency: number;
  /** Transformations waiting for a slot; past that, 503 `UNAVAILABLE` with `Retry-After`. */
  queue: number;
}

/** Where an original's variants live: one folder per asset, so deleting the asset removes them all at once. */
export const variantsKey = (originalKey: string) => `${originalKey}.variants`;

const EXTENSIONS: Record<ImageTransform['format'], string> = {
  png: 'png',
  jpeg: 'jpg',
  webp: 'webp',
  avif: 'avif',
  gif: 'gif',
};

/** At most `concurrency` jobs run; at most `queue` wait; the rest are refused at once instead of piling up. */
class BoundedQueue {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly options: ImageTransformOptions) {}

  async run<T>(job: () => Promise<T>): Promise<T> {
    if (this.running < this.options.concurrency) this.running++;
    else if (this.waiting.length < this.options.queue) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else throw new UnavailableError('Too many image transformations are waiting; retry shortly.');
    try {
      return await job();
    } finally {
      // A finished job hands its slot straight to the next waiter, so `running` only drops when nobody waits.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}

/** Keys of stored variants a process remembers (about 100 bytes each); past it, it starts over. */
const MAX_KNOWN_VARIANTS = 20_000;

export class ImageVariants {
  private readonly queue: BoundedQueue;
  /** Variants being computed by this process: concurrent requests for one variant share one computation. */
  private readonly inFlight = new Map<string, Promise<boolean>>();
  /**
   * Variants this process saw stored: their keys are never reused (they name the asset and hash its bytes and the
   * parameters), and a deleted asset is refused before its variants are asked for, so a hit here saves the store a
   * look (a `HEAD` per request on a bucket).
   */
  private readonly stored = new Set<string>();

  constructor(
    private readonly storage: AssetStorage,
    private readonly lease: VariantLease,
    options: ImageTransformOptions,
  ) {
    this.queue = new BoundedQueue(options);
  }

  /** The stored variant of `source`, computed first (`computed`) if no replica had stored it yet. */
  async variant(source: Deliverable, transform: ImageTransform): Promise<{ file: Deliverable; computed: boolean }> {
    const id = variantId(source.checksum, transform);
    const key = `${variantsKey(source.key)}/${id}`;
    let flight = this.inFlight.get(key);
    if (!flight && !this.stored.has(key)) {
      flight = this.ensure(source, transform, key).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, flight);
    }
    const computed = flight ? await flight : false;
    if (this.stored.size >= MAX_KNOWN_VARIANTS) this.stored.clear();
    this.stored.add(key);
    const name = `${source.name.replace(/\.[^.]*$/, '')}.${EXTENSIONS[transform.format]}`;
    // The id hashes the source checksum and the normalised parameters: a strong validator of its own.
    return { file: { key, checksum: id, type: FORMAT_TYPES[transform.format], name }, computed };
  }

  /** The store no longer has the variant at `key` (a bucket restored from an older copy): the next request makes it. */
  forget(key: string): void {
    this.stored.delete(key);
  }

  /** False when the variant was stored already, or another replica stored it while this one waited for its lease. */
  private async ensure(source: Deliverable, transform: ImageTransform, key: string): Promise<boolean> {
    const deadline = Date.now() + WAIT_FOR_OTHER_MS;
    for (let pause = 25; ; pause = Math.min(pause * 2, 500)) {
      if (await this.storage.exists(key)) return false;
      if (await this.lease.acquire(key)) break;
      if (Date.now() > deadline)
        throw new UnavailableError('The image variant is still being computed; retry shortly.');
      await sleep(pause);
    }
    try {
      // Stored by the previous holder between this replica's look and its lease.
      if (await this.storage.exists(key)) return false;
      await this.compute(source, transform, key);
      return true;
    } finally {
      await this.lease.release(key).catch(() => undefined);
    }
  }

  private async compute(source: Deliverable, transform: ImageTransform, key: string): Promise<void> {
    // Originals are bounded by the upload limit; sharp needs the whole encoded image anyway.
    const opened = await this.storage.open(source.key);
    if (!opened) throw new AppError('NOT_FOUND', 'File not found.', { resource: 'Asset', name: source.name });
    const input = await buffer(opened.body);
    await assertWithinLimit(input, transform);
    const bytes = await this.queue.run(() => render(input, transform));
    // A full disk answers 507 as an upload does (retrying later helps once space is freed), not an opaque 500.
    // Serving the bytes unstored instead would compute the variant again for every request while the disk is full,
    // at full CPU cost, with nothing telling the client or the operator why.
    await this.storage.put(key, Readable.from([bytes]), Number.MAX_SAFE_INTEGER).catch((err) => {
      throw err instanceof StorageFullError ? new AppError('INSUFFICIENT_STORAGE') : err;
    });
    transformations.inc({ format: transform.format });
  }
}

function tooLarge(width: number, height: number, what: 'source image is' | 'result would be'): ValidationFailedError {
  const message = `The ${what} ${width}×${height} pixels, over the limit of ${MAX_IMAGE_PIXELS}.`;
  return new ValidationFailedError([{ path: '', message }], message, { limit: MAX_IMAGE_PIXELS, width, height });
}

/** libvips' own message is not passed on: it can name the file's path in storage. */
function undecodable(): ValidationFailedError {
  const message = 'The image could not be decoded.';
  return new ValidationFailedError([{ path: '', message }], message);
}

/**
 * sharp loads with the first image transformation, not with the process: its libvips takes about 20 MB of resident memory,
 * which a process that never transforms an image (most of them, and every idle one) would carry for nothing.
 */
let loading: Promise<typeof Sharp> | undefined;
const loadSharp = () => (loading ??= import('sharp').then((m) => m.default));

/** Reads only the header: a small file claiming huge dimensions (a decompression bomb) is refused undecoded. */
async function assertWithinLimit(input: Buffer, t: ImageTransform): Promise<void> {
  const sharp = await loadSharp();
  const meta = await sharp(input)
    .metadata()
    .catch(() => Promise.reject(undecodable()));
  const width = meta.autoOrient?.width ?? meta.width;
  const height = meta.autoOrient?.height ?? meta.height;
  if (!width || !height) throw undecodable();
  if (width * height > MAX_IMAGE_PIXELS) throw tooLarge(width, height, 'source image is');
  // One given side keeps the aspect ratio, and `outside` covers both: a thin source can make a huge result.
  const out = outputSize(width, height, t);
  if (out.width * out.height > MAX_IMAGE_PIXELS) throw tooLarge(out.width, out.height, 'result would be');
}

function outputSize(width: number, height: number, t: ImageTransform): { width: number; height: number } {
  if (!t.width && !t.height) return { width, height };
  if (!t.width || !t.height) {
    const scale = t.width ? t.width / width : t.height! / height;
    return { width: Math.round(width * scale), height: Math.round(height * scale) };
  }
  if (t.fit !== 'outside') return { width: t.width, height: t.height };
  const scale = Math.max(t.width / width, t.height / height);
  return { width: Math.round(width * scale), height: Math.round(height * scale) };
}

/** Same input, parameters and library version → same bytes; metadata (EXIF, GPS) is dropped, orientation applied. */
async function render(input: Buffer, t: ImageTransform): Promise<Buffer> {
  const sharp = await loadSharp();
  let image = sharp(input, { limitInputPixels: MAX_IMAGE_PIXELS, autoOrient: true });
  if (t.width || t.height) {
    // `contain` pads with transparency (white where the format has no alpha).
    const background = { r: 255, g: 255, b: 255, alpha: 0 };
    image = image.resize({ width: t.width, height: t.height, fit: t.fit, background });
  }
  if (t.format === 'jpeg') image = image.flatten({ background: '#ffffff' }).jpeg({ quality: t.quality });
  else if (t.format === 'webp') image = image.webp({ quality: t.quality });
  else if (t.format === 'avif') image = image.avif({ quality: t.quality });
  else if (t.format === 'png') image = image.png();
  else image = image.gif();
  return image.toBuffer().catch(() => Promise.reject(undecodable()));
}
