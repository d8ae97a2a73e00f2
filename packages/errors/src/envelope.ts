// The one edge mapping from any thrown or GraphQL-reported error to its HTTP status and envelope.
import { ERROR_CATALOGUE, isErrorCode, type ErrorCode } from './catalogue';
import { inputErrorOf } from './input-error';
import { exhaustionErrorOf } from './resource-exhaustion';
import { unavailableErrorOf } from './unavailable-error';
import { translatedMessage } from './translations';

export interface ErrorEnvelope {
  error: { code: ErrorCode; message: string; details?: Record<string, unknown> };
}

export interface EdgeContext {
  requestId: string;
  lang: string;
  /** REST GET: variables come from the query string, so a bad one is 400 naming the parameter. */
  variablesFrom: 'query' | 'body';
}

interface ErrorLike {
  message?: string;
  extensions?: Record<string, unknown>;
  originalError?: unknown;
}

/** graphql-js reports a bad variable as `Variable "$x" got invalid value … at "x.a.b"; <reason>`. */
const VARIABLE_ERROR =
  /^Variable "\$([^"]+)" (?:got invalid value.*?(?: at "([^"]+)")?; (.*)|of required type "[^"]+" was not provided\.)$/s;

function variableError(message: string): { variable: string; path: string; reason: string } | undefined {
  const m = VARIABLE_ERROR.exec(message);
  if (!m) return undefined;
  const [, variable, at, reason] = m;
  // `input` carries the request body (see the REST layer), so its members are top-level body paths.
  const segments = (at ?? variable).split('.').filter((s, i) => !(i === 0 && s === 'input'));
  // A missing or unknown member is named in the reason: point at it.
  const member = reason && /^Field "([^"]+)" (?:of required type|is not defined)/.exec(reason);
  if (member) segments.push(member[1]);
  const path = segments.map((s) => `/${s.replace(/\[(\d+)\]/g, '/$1')}`).join('');
  return { variable, path, reason: reason ?? 'is required' };
}

/**
 * Apollo's codes for a request the client got wrong: a parse or validation failure, bad input, or (the gateway's
 * INVALID_GRAPHQL) an `operationName` the document does not define.
 */
const CLIENT_GRAPHQL_CODES = new Set([
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'BAD_USER_INPUT',
  'INVALID_GRAPHQL',
  'OPERATION_RESOLUTION_FAILURE',
]);

/**
 * Apollo's own refusals of a request before it runs (a persisted-query hash that doesn't match its query, an
 * unsupported persisted-query version) carry no code, only `extensions.http.status` 400: the client's mistake.
 */
function isApolloRequestError(ext: Record<string, unknown>): boolean {
  return ext.code === undefined && (ext.http as { status?: unknown } | undefined)?.status === 400;
}

/**
 * The typed error a database failure stands for, wherever it sits in the chain of causes: a refused client value
 * (400), a database out of disk (507) or of memory or connections (503), or an unreachable database (503); undefined
 * for anything else.
 */
export function knownErrorOf(err: unknown) {
  return inputErrorOf(err) ?? exhaustionErrorOf(err) ?? unavailableErrorOf(err);
}

/** Maps one error to `{status, envelope}`; unknown errors become INTERNAL with no stack, no SQL. */
export function toErrorEnvelope(err: unknown, edge: EdgeContext): { status: number; body: ErrorEnvelope } {
  const e = (knownErrorOf(err) ?? err ?? {}) as ErrorLike;
  const ext = e.extensions ?? {};
  let code: ErrorCode;
  let message: string | undefined = e.message;
  let details = ext.details as Record<string, unknown> | undefined;

  const variable = typeof e.message === 'string' ? variableError(e.message) : undefined;
  if (isErrorCode(ext.code)) {
    code = ext.code;
  } else if (variable) {
    if (edge.variablesFrom === 'query') {
      code = 'BAD_REQUEST';
      details = { parameter: variable.variable, reason: variable.reason };
      message = `Query parameter "${variable.variable}" is invalid: ${variable.reason}`;
    } else {
      code = 'VALIDATION_FAILED';
      details = { errors: [{ path: variable.path, message: variable.reason }] };
      message = ERROR_CATALOGUE.VALIDATION_FAILED.message;
    }
  } else if (CLIENT_GRAPHQL_CODES.has(String(ext.code)) || isApolloRequestError(ext)) {
    code = 'BAD_REQUEST';
  } else {
    code = 'INTERNAL';
    message = undefined;
    details = undefined;
  }

  if (code === 'INTERNAL') details = { requestId: edge.requestId };
  // A client that asked for another language gets the code's translated message; `details` keep the specifics.
  const text = (edge.lang !== 'en' && translatedMessage(code, edge.lang)) || message || ERROR_CATALOGUE[code].message;
  return {
    status: ERROR_CATALOGUE[code].status,
    body: { error: details === undefined ? { code, message: text } : { code, message: text, details } },
  };
}

/** When several errors come back, the one with the highest status decides (a 500 outranks a 404). */
export function primaryError<T>(errors: readonly T[], edge: EdgeContext): T {
  return errors.reduce((a, b) => (toErrorEnvelope(b, edge).status > toErrorEnvelope(a, edge).status ? b : a));
}
