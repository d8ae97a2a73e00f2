// Every error code the API can answer with, its HTTP status and its default message, in one place.
export const ERROR_CATALOGUE = {
  BAD_REQUEST: { status: 400, message: 'The request is malformed.' },
  UNAUTHORIZED: { status: 401, message: 'Authentication is missing, invalid, expired or revoked.' },
  FORBIDDEN: { status: 403, message: 'You do not have permission to perform this action.' },
  NOT_FOUND: { status: 404, message: 'The resource does not exist.' },
  CONTENT_TYPE_NOT_FOUND: { status: 404, message: 'The content type does not exist.' },
  TYPE_VERSION_NOT_FOUND: { status: 404, message: 'The content type version does not exist.' },
  INVALID_STATUS_TRANSITION: { status: 409, message: 'This status transition is not allowed.' },
  ASSET_IN_USE: { status: 409, message: 'The asset is referenced by a published package.' },
  COMPONENT_IN_USE: { status: 409, message: 'The component is referenced by a package.' },
  CONTENT_REFERENCED: { status: 409, message: 'Other entries reference this; remove those references first.' },
  NAME_TAKEN: { status: 409, message: 'The name is already used in this project.' },
  RELEASE_FAILED: { status: 409, message: 'An item of the release was refused; nothing changed.' },
  NOTHING_TO_PUBLISH: { status: 409, message: 'There is nothing to publish.' },
  FOLDER_NOT_EMPTY: { status: 409, message: 'The folder is not empty.' },
  CONFLICT: { status: 409, message: 'The request conflicts with the current state.' },
  PRECONDITION_FAILED: { status: 412, message: 'The resource has changed since the revision you named.' },
  IDEMPOTENCY_KEY_IN_USE: { status: 409, message: 'A request with this Idempotency-Key is still running.' },
  IDEMPOTENCY_ANSWER_LOST: {
    status: 409,
    message:
      'The request with this Idempotency-Key made its change, but the service stopped before its answer was kept; read the resource instead of retrying.',
  },
  REQUEST_TIMEOUT: { status: 408, message: 'The request did not arrive in time; the connection is closed.' },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'The payload is too large.' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'The body must be application/json.' },
  RANGE_NOT_SATISFIABLE: { status: 416, message: 'The requested range lies outside the file.' },
  VALIDATION_FAILED: { status: 422, message: 'The request body failed validation.' },
  INVALID_COMPONENT: { status: 422, message: 'A component type in the content is not allowed.' },
  INVALID_STATUS: { status: 422, message: 'The status value is not allowed.' },
  INVALID_MIGRATION: { status: 422, message: 'The migration target is older than the current version.' },
  IDEMPOTENCY_KEY_REUSED: { status: 422, message: 'This Idempotency-Key was used for a different request.' },
  RATE_LIMITED: { status: 429, message: 'Too many requests.' },
  INTERNAL: { status: 500, message: 'An internal error occurred.' },
  INSUFFICIENT_STORAGE: { status: 507, message: 'The server has no space left to store this; nothing was kept.' },
  UNAVAILABLE: { status: 503, message: 'The service is temporarily unavailable.' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.hasOwn(ERROR_CATALOGUE, code);
}

export function statusOf(code: ErrorCode): number {
  return ERROR_CATALOGUE[code].status;
}
