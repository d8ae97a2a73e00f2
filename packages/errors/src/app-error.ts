// Typed errors thrown by services: a stable `code` and structured `details`, never an HTTP status (stack-facts pitfall 1).
import { GraphQLError } from 'graphql';
import { ERROR_CATALOGUE, type ErrorCode } from './catalogue';

export type ErrorDetails = Record<string, unknown>;

export class AppError extends GraphQLError {
  readonly code: ErrorCode;
  readonly details?: ErrorDetails;

  constructor(code: ErrorCode, message: string = ERROR_CATALOGUE[code].message, details?: ErrorDetails) {
    super(message, { extensions: details === undefined ? { code } : { code, details } });
    this.code = code;
    this.details = details;
  }
}

export class BadRequestError extends AppError {
  constructor(message?: string, details?: ErrorDetails) {
    super('BAD_REQUEST', message, details);
  }
}

export class UnauthorizedError extends AppError {
  constructor(message?: string) {
    super('UNAUTHORIZED', message);
  }
}

export class ForbiddenError extends AppError {
  constructor(resource: string, action: string) {
    super('FORBIDDEN', `You may not ${action} ${resource}.`, { resource, action });
  }
}

export class NotFoundError extends AppError {
  constructor(resource: string, id?: string) {
    super('NOT_FOUND', `${resource} not found.`, id === undefined ? { resource } : { resource, id });
  }
}

export class NameTakenError extends AppError {
  constructor(resource: string, name: string) {
    super('NAME_TAKEN', `A ${resource} named "${name}" already exists in this project.`, { resource, name });
  }
}

export interface FieldError {
  path: string;
  message: string;
}

/** 422 with `details.errors[]` of `{path, message}`, paths as JSON Pointers. */
export class ValidationFailedError extends AppError {
  constructor(errors: FieldError[], message = 'The request body failed validation.', extra?: ErrorDetails) {
    super('VALIDATION_FAILED', message, { errors, ...extra });
  }
}

export class InvalidStatusTransitionError extends AppError {
  constructor(currentStatus: string, requestedStatus: string) {
    super('INVALID_STATUS_TRANSITION', `Cannot go from "${currentStatus}" to "${requestedStatus}".`, {
      currentStatus,
      requestedStatus,
    });
  }
}

export class RateLimitedError extends AppError {
  constructor(readonly retryAfterSeconds: number) {
    super('RATE_LIMITED', undefined, { retryAfter: retryAfterSeconds });
  }
}

/** 412: `If-Match` / `expectedRevision` named another revision; nothing changed. */
export class PreconditionFailedError extends AppError {
  constructor(currentRevision: number, expectedRevision?: number) {
    super(
      'PRECONDITION_FAILED',
      `The resource is at revision ${currentRevision}, not ${expectedRevision ?? 'the one named'}.`,
      { currentRevision },
    );
  }
}
