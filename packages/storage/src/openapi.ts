// OpenAPI pieces of the storage routes modules declare: the multipart upload body (upload.ts), CDN delivery's
// conditional and range requests and answers (deliver.ts), and the image transformation parameters (image-params.ts).
import type { OpenAPIV3 } from 'openapi-types';

/** The multipart body `receiveUpload` reads: `file`, plus the form fields a module takes (`extra`). */
export function uploadRequestBody(extra: Record<string, OpenAPIV3.SchemaObject>): OpenAPIV3.RequestBodyObject {
  return {
    required: true,
    content: {
      'multipart/form-data': {
        schema: {
          type: 'object',
          required: ['file'],
          properties: {
            file: {
              type: 'string',
              format: 'binary',
              description: 'The bytes; the type is sniffed, not taken from the client.',
            },
            ...extra,
          },
        },
        encoding: { file: { contentType: 'application/octet-stream' } },
      },
    },
  };
}

const queryParameter = (name: string, schema: OpenAPIV3.SchemaObject, description: string) =>
  ({ in: 'query', name, required: false, schema, description }) satisfies OpenAPIV3.ParameterObject;

/** The image transformation parameters `parseImageParams` reads. */
export const IMAGE_PARAMETERS: OpenAPIV3.ParameterObject[] = [
  queryParameter('w', { type: 'integer', minimum: 1, maximum: 4000 }, 'Width in pixels.'),
  queryParameter('h', { type: 'integer', minimum: 1, maximum: 4000 }, 'Height in pixels.'),
  queryParameter(
    'fit',
    { type: 'string', enum: ['cover', 'contain', 'fill', 'inside', 'outside'], default: 'inside' },
    'How the image fits `w`×`h` when both are given.',
  ),
  queryParameter(
    'fm',
    { type: 'string', enum: ['png', 'jpeg', 'webp', 'avif', 'auto'] },
    'Output format (default: the source format); `auto`: AVIF or WebP when `Accept` lists them, else the source.',
  ),
  queryParameter('q', { type: 'integer', minimum: 1, maximum: 100, default: 80 }, 'Quality (JPEG, WebP, AVIF).'),
];

/** What `deliver` honours: a byte range and a previously received ETag. */
export const DELIVERY_PARAMETERS: OpenAPIV3.ParameterObject[] = [
  {
    in: 'header',
    name: 'Range',
    required: false,
    schema: { type: 'string' },
    description: 'A byte range, e.g. `bytes=0-99`.',
  },
  {
    in: 'header',
    name: 'If-None-Match',
    required: false,
    schema: { type: 'string' },
    description: 'A previously received ETag.',
  },
];

/** What `deliver` answers besides errors: the bytes, a range of them, or not modified. */
export const DELIVERY_RESPONSES: OpenAPIV3.ResponsesObject = {
  '200': {
    description: 'The bytes.',
    headers: { ETag: { schema: { type: 'string' } }, 'Cache-Control': { schema: { type: 'string' } } },
    content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
  },
  '206': {
    description: 'The requested range.',
    content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
  },
  '304': { description: 'Not modified.' },
};

/** What `deliver` does, for a CDN route's description. */
export const DELIVERY_DESCRIPTION =
  'Strong `ETag` (the sha256), `304` on `If-None-Match`, `Range` → `206`, a year of immutable caching, `nosniff`; ' +
  'HTML, SVG, XML and JavaScript download as attachments. The file name segment is informational.';
