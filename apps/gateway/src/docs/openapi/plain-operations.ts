// OpenAPI operations of the plain HTTP routes: multipart uploads (D8), CDN delivery (D8), event lists and SSE streams (D9).
import { EVENT_ROUTE_RESOURCE_TYPES } from '@cp/db';
import type { OpenAPIV3 } from 'openapi-types';
import type { PlainRoute } from '../../rest/plain-routes';
import { errorResponses, successHeaders } from './errors';
import { PAGINATION_PARAMETERS } from './parameters';

const schemaRef = (name: string, has: (name: string) => boolean): OpenAPIV3.SchemaObject | OpenAPIV3.ReferenceObject =>
  has(name) ? { $ref: `#/components/schemas/${name}` } : { type: 'object', additionalProperties: true };

const queryParameter = (name: string, schema: OpenAPIV3.SchemaObject, description: string) =>
  ({ in: 'query', name, required: false, schema, description }) satisfies OpenAPIV3.ParameterObject;

/** D19: the image transformation parameters of the asset CDN route. */
const IMAGE_PARAMETERS: OpenAPIV3.ParameterObject[] = [
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

const uploadBody = (extra: Record<string, OpenAPIV3.SchemaObject>): OpenAPIV3.RequestBodyObject => ({
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
});

/** Documentation for one plain route; `has` tells whether the GraphQL-derived schemas include a type. */
export function plainOperation(route: PlainRoute, has: (name: string) => boolean): OpenAPIV3.OperationObject {
  switch (route.id) {
    case 'assetUpload':
      return {
        operationId: 'uploadAsset',
        tags: ['assets'],
        summary: 'Upload an asset (multipart/form-data).',
        description:
          'Streams `file` to storage, computing size and sha256; over `MAX_UPLOAD_BYTES` is 413 with nothing kept (D8).',
        requestBody: uploadBody({
          tags: { type: 'string', description: 'Tag names: a JSON array or a comma-separated list.' },
          folderId: { type: 'string', description: 'Folder to file the asset in.' },
          metadata: { type: 'string', description: 'A JSON object.' },
        }),
        responses: {
          '201': {
            description: 'The stored asset, as `GET …/assets/{id}` returns it.',
            headers: successHeaders(true),
            content: { 'application/json': { schema: schemaRef('Asset', has) } },
          },
          ...errorResponses({ authenticated: true, write: false, body: true, upload: true }),
        },
      };
    case 'componentAssetUpload':
      return {
        operationId: 'uploadComponentAsset',
        tags: ['components'],
        summary: 'Upload an asset of a component (multipart/form-data).',
        description: 'Created `uploading`, then `processing` while the type is sniffed, then `active` (or `error`).',
        requestBody: uploadBody({}),
        responses: {
          '201': {
            description: 'The component asset.',
            headers: successHeaders(true),
            content: { 'application/json': { schema: schemaRef('ComponentAsset', has) } },
          },
          ...errorResponses({ authenticated: true, write: false, body: true, upload: true }),
        },
      };
    case 'assetCdn':
    case 'componentAssetCdn':
      return {
        operationId: route.id === 'assetCdn' ? 'deliverAsset' : 'deliverComponentAsset',
        tags: ['cdn'],
        security: [],
        summary:
          route.id === 'assetCdn'
            ? 'The bytes of an active asset (public).'
            : 'The bytes of an active component asset (public).',
        description:
          'Strong `ETag` (the sha256), `304` on `If-None-Match`, `Range` → `206`, a year of immutable caching, `nosniff`; ' +
          'HTML, SVG, XML and JavaScript download as attachments. The file name segment is informational.' +
          (route.id === 'assetCdn'
            ? ' Image parameters (D19) answer a stored variant with its own `ETag` (`Vary: Accept` with `fm=auto`); ' +
              'without parameters the original bytes.'
            : ''),
        parameters: [
          ...(route.id === 'assetCdn' ? IMAGE_PARAMETERS : []),
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
        ],
        responses: {
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
          ...errorResponses({ authenticated: false, write: false, body: false, image: route.id === 'assetCdn' }),
        },
      };
    case 'events':
    case 'resourceTypeEvents':
    case 'resourceEvents': {
      const family = route.family;
      return {
        operationId: `${family === 'app' ? 'admin' : 'client'}${route.id[0].toUpperCase()}${route.id.slice(1)}`,
        tags: ['events'],
        summary:
          route.id === 'events'
            ? 'Events of the project, oldest first.'
            : route.id === 'resourceTypeEvents'
              ? 'Events of one resource type.'
              : 'Events of one resource.',
        description:
          'JSON pages (cursor pagination, D1), or with `Accept: text/event-stream` a Server-Sent Events stream: `id:` is the cursor, ' +
          '`event:` the type, `data:` the JSON event, `: ping` every 15 s; `Last-Event-ID` (or `lastKey`) resumes with no gap.' +
          (family === 'api' ? ' API keys see published-state events only.' : ''),
        parameters: [
          ...(route.id !== 'events'
            ? [
                {
                  in: 'path' as const,
                  name: 'resourceType',
                  required: true,
                  schema: { type: 'string' as const, enum: [...EVENT_ROUTE_RESOURCE_TYPES] },
                },
              ]
            : []),
          {
            in: 'query',
            name: 'type',
            required: false,
            schema: { type: 'string' },
            description: 'Only this event type, e.g. `content.published`.',
          },
          {
            in: 'query',
            name: 'since',
            required: false,
            schema: { type: 'string', format: 'date-time' },
            description: 'Only events at or after this instant.',
          },
          ...PAGINATION_PARAMETERS.cursor,
          {
            in: 'header',
            name: 'Last-Event-ID',
            required: false,
            schema: { type: 'string' },
            description: 'SSE: resume after this event.',
          },
        ],
        responses: {
          '200': {
            description: 'A page of events, or an event stream.',
            headers: successHeaders(true),
            content: {
              'application/json': { schema: schemaRef('EventList', has) },
              'text/event-stream': {
                schema: {
                  type: 'string',
                  description: 'Server-Sent Events: `id`, `event` and `data` (the JSON event) per message.',
                },
              },
            },
          },
          ...errorResponses({ authenticated: true, write: false, body: false }),
        },
      };
    }
  }
}
