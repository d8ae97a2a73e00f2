// GraphQL-side twin of the REST envelope: every error leaves with a D4 `extensions.code`, no stack, no SQL.
import type { GraphQLFormattedError } from 'graphql';
import { toErrorEnvelope, type EdgeContext } from './envelope';

/** Apollo `formatError`: the code and details the REST envelope would carry, inside `extensions`. */
export function formatGraphQLError(formatted: GraphQLFormattedError, error: unknown, edge: EdgeContext): GraphQLFormattedError {
  const { body } = toErrorEnvelope(unwrap(error) ?? formatted, edge);
  const { code, message, details } = body.error;
  return {
    message,
    ...(formatted.locations ? { locations: formatted.locations } : {}),
    ...(formatted.path ? { path: formatted.path } : {}),
    extensions: details === undefined ? { code } : { code, details },
  };
}

/** Apollo wraps resolver errors; the typed error (with our code) is the original one. */
function unwrap(error: unknown): unknown {
  const e = error as { extensions?: { code?: unknown }; originalError?: unknown } | undefined;
  if (e?.originalError && typeof (e.originalError as { extensions?: unknown }).extensions === 'object') return e.originalError;
  return error;
}

export function isInternal(formatted: GraphQLFormattedError): boolean {
  return formatted.extensions?.code === 'INTERNAL';
}
