// The CDN's image query parameters: strict parsing, the normalised form that names a variant, format choice.
import { BadRequestError } from '@cp/errors';
import { createHash } from 'node:crypto';

export const IMAGE_FITS = ['cover', 'contain', 'fill', 'inside', 'outside'] as const;
export const IMAGE_FORMATS = ['png', 'jpeg', 'webp', 'avif', 'auto'] as const;
export type ImageFit = (typeof IMAGE_FITS)[number];
/** What a variant is written as: the requestable formats plus GIF, which a GIF source keeps by default. */
export type OutputFormat = Exclude<(typeof IMAGE_FORMATS)[number], 'auto'> | 'gif';

/** Sources that can be transformed; SVG is excluded: rasterising untrusted SVG is not worth the risk. */
export const TRANSFORMABLE_TYPES: ReadonlyMap<string, OutputFormat> = new Map([
  ['image/png', 'png'],
  ['image/jpeg', 'jpeg'],
  ['image/webp', 'webp'],
  ['image/avif', 'avif'],
  ['image/gif', 'gif'],
]);

export const FORMAT_TYPES: Record<OutputFormat, string> = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  avif: 'image/avif',
  gif: 'image/gif',
};

export const MAX_DIMENSION = 4000;
export const DEFAULT_QUALITY = 80;

/** The parameters as the client wrote them, validated but not yet resolved against a source. */
export interface ImageParams {
  w?: number;
  h?: number;
  fit?: ImageFit;
  fm?: (typeof IMAGE_FORMATS)[number];
  q?: number;
}

/** A resolved transformation: every default applied, the format chosen. */
export interface ImageTransform {
  width?: number;
  height?: number;
  fit: ImageFit;
  format: OutputFormat;
  quality: number;
  /** `fm=auto`: the format followed `Accept`, so the answer must say `Vary: Accept`. */
  negotiated: boolean;
}

const PARAMETERS = ['w', 'h', 'fit', 'fm', 'q'] as const;
// Canonical decimal integers only: `08`, `+8`, `8.0` or `1e3` would give one variant several URLs.
const INTEGER = /^[1-9][0-9]{0,5}$/;

function invalid(parameter: string, message: string, value?: string): never {
  throw new BadRequestError(message, value === undefined ? { parameter } : { parameter, value });
}

function integer(name: string, raw: string, max: number): number {
  const value = INTEGER.test(raw) ? Number(raw) : NaN;
  if (!(value <= max)) invalid(name, `\`${name}\` must be an integer from 1 to ${max}.`, raw);
  return value;
}

function oneOf<T extends string>(name: string, raw: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(raw)) {
    invalid(name, `\`${name}\` must be one of ${allowed.join(', ')}.`, raw);
  }
  return raw as T;
}

/**
 * Strict: an unknown, repeated or malformed parameter is 400 `BAD_REQUEST` naming it in `details.parameter`. Takes
 * the request's parsed query (the gateway's parser already refuses repeats; an array here is a repeat too).
 */
export function parseImageParams(query: Readonly<Record<string, unknown>>): ImageParams | undefined {
  const params: ImageParams = {};
  const names = Object.keys(query);
  for (const name of names) {
    const raw = query[name];
    if (!(PARAMETERS as readonly string[]).includes(name)) {
      invalid(name, `Unknown parameter \`${name}\`; the CDN takes ${PARAMETERS.join(', ')}.`);
    }
    if (typeof raw !== 'string') invalid(name, `\`${name}\` must be given once, as a plain value.`);
    if (name === 'w' || name === 'h') params[name] = integer(name, raw, MAX_DIMENSION);
    else if (name === 'q') params.q = integer(name, raw, 100);
    else if (name === 'fit') params.fit = oneOf(name, raw, IMAGE_FITS);
    else params.fm = oneOf(name, raw, IMAGE_FORMATS);
  }
  return names.length ? params : undefined;
}

/** Whether `Accept` lists `type` by name with a non-zero weight (`*\/*` and `image/*` name no format in particular). */
function accepts(accept: string, type: string): boolean {
  return accept.split(',').some((range) => {
    const [name, ...rest] = range.split(';').map((s) => s.trim().toLowerCase());
    const weight = rest.find((p) => p.startsWith('q='));
    return name === type && !(weight && Number(weight.slice(2)) === 0);
  });
}

/** Applies the transformation defaults against the source's type; 400 when the source is not a transformable image. */
export function resolveTransform(params: ImageParams, sourceType: string, accept: string | undefined): ImageTransform {
  const source = TRANSFORMABLE_TYPES.get(sourceType);
  if (!source) {
    const parameter = Object.keys(params)[0];
    const message = `Only PNG, JPEG, WebP, AVIF and GIF images can be transformed, not ${sourceType}.`;
    throw new BadRequestError(message, { parameter, type: sourceType });
  }
  let format: OutputFormat = source;
  if (params.fm === 'auto') {
    if (accepts(accept ?? '', 'image/avif')) format = 'avif';
    else if (accepts(accept ?? '', 'image/webp')) format = 'webp';
  } else if (params.fm) format = params.fm;
  return {
    width: params.w,
    height: params.h,
    fit: params.fit ?? 'inside',
    format,
    quality: params.q ?? DEFAULT_QUALITY,
    negotiated: params.fm === 'auto',
  };
}

/**
 * The variant's name: a hash of the source checksum and the parameters that change the bytes. Settings that cannot
 * change the result are left out (`fit` with fewer than two dimensions, quality for PNG and GIF), so equivalent URLs
 * share one stored variant and one ETag.
 */
export function variantId(sourceChecksum: string, t: ImageTransform): string {
  const fit = t.width && t.height ? t.fit : '';
  const quality = t.format === 'png' || t.format === 'gif' ? '' : t.quality;
  const normalised = `w=${t.width ?? ''}&h=${t.height ?? ''}&fit=${fit}&fm=${t.format}&q=${quality}`;
  return createHash('sha256').update(`${sourceChecksum}?${normalised}`).digest('hex');
}
