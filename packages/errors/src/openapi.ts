// The error envelope as OpenAPI: its schema, the error responses and headers every documented operation (sofa-derived
// REST or a module's HTTP route) answers with.
import { ERROR_CATALOGUE } from './catalogue';
import type { OpenAPIV3 } from 'openapi-types';

const CODES = Object.keys(ERROR_CATALOGUE);

export const ERROR_SCHEMAS: Record<string, OpenAPIV3.SchemaObject> = {
  ErrorEnvelope: {
    type: 'object',
    description:
      'Every error: a stable `code`, a message (translated by `Accept-Language` where possible) and `details`.',
    required: ['error'],
    properties: {
      error: {
        type: 'object',
        required: ['code', 'message'],
        properties: {
          code: { type: 'string', enum: CODES, description: 'Stable error code; the HTTP status follows from it.' },
          message: { type: 'string', description: 'Human-readable message.' },
          details: {
            type: 'object',
            additionalProperties: true,
            description:
              'Specifics: `parameter` for bad query parameters, `errors[]` of `{path, message}` for validation, `requestId` for internal errors, …',
          },
        },
      },
    },
  },
};

const header = (description: string, schema: OpenAPIV3.SchemaObject = { type: 'string' }): OpenAPIV3.HeaderObject => ({
  description,
  schema,
});

export const COMMON_HEADERS: Record<string, OpenAPIV3.HeaderObject> = {
  RequestId: header('The request id (echoed, or generated when the client sent none).'),
  RateLimitLimit: header('Requests allowed in the tighter rate-limit window.', { type: 'integer' }),
  RateLimitRemaining: header('Requests left in that window.', { type: 'integer' }),
  RateLimitReset: header('Seconds until that window resets.', { type: 'integer' }),
  RetryAfter: header('Seconds to wait before retrying.', { type: 'integer' }),
};

const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** One reusable response per status of the catalogue, each with the envelope as body. */
const STATUSES: Record<string, string> = {
  '400': 'Bad request: malformed body or query parameter (`details.parameter`), or a rejected GraphQL document.',
  '401': 'Missing, invalid, expired or revoked credential.',
  '403': 'The credential lacks the permission (`details.resource`, `details.action`).',
  '404': 'Unknown resource or route.',
  '409': 'Conflicts with the current state (status transition, name taken, in use, …).',
  '412': 'If-Match names another revision (`details.currentRevision`).',
  '413': 'The body exceeds the size limit.',
  '422':
    'A well-formed body failed validation (`details.errors[]` of `{path, message}`), or an image is over the pixel ' +
    'limit (`details.limit`).',
  '429': 'Rate limit exceeded; see `Retry-After`.',
  '500': 'Unexpected error; `details.requestId` identifies it in the logs.',
  '503': 'Temporarily unavailable (`UNAVAILABLE`), e.g. the image transformation queue is full; see `Retry-After`.',
  '507':
    'No space left to store the upload, the change or the image variant (`INSUFFICIENT_STORAGE`); nothing was kept, ' +
    'retry later.',
};

export const ERROR_RESPONSES: Record<string, OpenAPIV3.ResponseObject> = Object.fromEntries(
  Object.entries(STATUSES).map(([status, description]) => [
    `Error${status}`,
    {
      description,
      headers: {
        'X-Request-ID': ref('RequestId'),
        ...(status === '429' || status === '503' ? { 'Retry-After': ref('RetryAfter') } : {}),
      } as Record<string, OpenAPIV3.ReferenceObject>,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
    },
  ]),
);

/**
 * Error statuses an operation documents: every one a request can produce on that kind of route. `image`: the asset
 * CDN route's transformations add 422 (pixel limit) and 503 (queue full).
 */
export function errorResponses(options: {
  authenticated: boolean;
  write: boolean;
  body: boolean;
  upload?: boolean;
  image?: boolean;
}) {
  const statuses = ['400', ...(options.authenticated ? ['401', '403', '429'] : []), '404'];
  if (options.write) statuses.push('409', '412');
  if (options.body || options.upload) statuses.push('413', '422');
  statuses.push('500');
  if (options.upload) statuses.push('507');
  if (options.image) statuses.push('422', '503');
  return Object.fromEntries(statuses.sort().map((s) => [s, { $ref: `#/components/responses/Error${s}` }]));
}

/** Headers of successful responses on rate-limited routes. */
export function successHeaders(authenticated: boolean): Record<string, OpenAPIV3.ReferenceObject> {
  return authenticated
    ? {
        'X-Request-ID': ref('RequestId'),
        'RateLimit-Limit': ref('RateLimitLimit'),
        'RateLimit-Remaining': ref('RateLimitRemaining'),
        'RateLimit-Reset': ref('RateLimitReset'),
      }
    : { 'X-Request-ID': ref('RequestId') };
}
