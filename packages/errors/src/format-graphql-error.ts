// GraphQL-side twin of the REST envelope: every error leaves with a catalogue `extensions.code`, no stack, no SQL.
import type { GraphQLFormattedError } from 'graphql';
import { isErrorCode, statusOf } from './catalogue';
import { toErrorEnvelope, type EdgeContext } from './envelope';

/** Apollo `formatError`: the code and details the REST envelope would carry, inside `extensions`. */
export function formatGraphQLError(
  formatted: GraphQLFormattedError,
  error: unknown,
  edge: EdgeContext,
): GraphQLFormattedError {
  const { body } = toErrorEnvelope(unwrap(error) ?? formatted, edge);
  const { code, message, details } = body.error;
  return {
    message,
    ...(formatted.locations ? { locations: formatted.locations } : {}),
    ...(formatted.path ? { path: formatted.path } : {}),
    extensions: details === undefined ? { code } : { code, details },
  };
}

/** Apollo may wrap a typed error (one carrying our code); anything else is judged by the outer error. */
function unwrap(error: unknown): unknown {
  const original = (error as { originalError?: { extensions?: { code?: unknown } } } | undefined)?.originalError;
  return isErrorCode(original?.extensions?.code) ? original : error;
}

export function isInternal(formatted: GraphQLFormattedError): boolean {
  return formatted.extensions?.code === 'INTERNAL';
}

/**
 * The HTTP status of a GraphQL answer, as at our gateway: when no data came back at all, the first error's code's
 * status (401, 403, 429, 503, …); undefined (keep 200) when some data came back or the first error is INTERNAL.
 */
export function graphQLResultStatus(
  data: Record<string, unknown> | null | undefined,
  errors: readonly GraphQLFormattedError[] | undefined,
): number | undefined {
  const code = errors?.[0]?.extensions?.code;
  const nothing = data === null || data === undefined || Object.values(data).every((v) => v === null);
  return nothing && isErrorCode(code) && statusOf(code) !== 500 ? statusOf(code) : undefined;
}
