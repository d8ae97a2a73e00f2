// `select` on REST reads: the entry fields the answer keeps. The content subgraph prunes the `content` document to the
// selected `content.<path>`s (and checks them); here the REST answer's entries (its `data` items, or the one entry)
// keep `id`, the fields named and `content` when any of it is named. `includes` stay whole.
import { BadRequestError } from '@cp/errors';
import { getNamedType, isInputObjectType, type GraphQLArgument } from 'graphql';
import type { RestShape } from './rest-shape';

export const SELECT_ARGUMENT = 'select';
const DOCUMENT = 'content';
/** Kept whatever is selected: the entry's identity, and a single entry's `includes` (linked entries, never pruned). */
const ALWAYS = new Set(['id', 'includes']);

/** Where a route takes `select`: a query parameter (GET), a search body's member, or nowhere. */
export function selectSource(args: readonly GraphQLArgument[]): 'query' | 'body' | undefined {
  if (args.some((a) => a.name === SELECT_ARGUMENT)) return 'query';
  const input = args.find((a) => a.name === 'input');
  const type = input && getNamedType(input.type);
  return isInputObjectType(type) && SELECT_ARGUMENT in type.getFields() ? 'body' : undefined;
}

/**
 * The names a request selects (undefined: no `select`, the answer untouched). A body's `select` that is not an array
 * of strings is 400 naming the parameter, as a malformed query parameter is.
 */
export function selectedNames(
  source: 'query' | 'body' | undefined,
  query: Readonly<Record<string, string>>,
  body: Record<string, unknown> | undefined,
): string[] | undefined {
  if (source === 'query') return query[SELECT_ARGUMENT]?.split(',').map((n) => n.trim());
  if (source !== 'body' || body?.[SELECT_ARGUMENT] === undefined || body[SELECT_ARGUMENT] === null) return undefined;
  const value = body[SELECT_ARGUMENT];
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string'))
    throw new BadRequestError('select must be an array of field names.', { parameter: SELECT_ARGUMENT, value });
  return (value as string[]).flatMap((v) => v.split(',')).map((n) => n.trim());
}

/** The members of the REST answer's entries: its `data` items', or the single object's. */
function entryShape(shape: RestShape): ReadonlyMap<string, RestShape> {
  if (shape.kind !== 'object') return new Map();
  const data = shape.members.get('data');
  return data?.kind === 'object' ? data.members : shape.members;
}

/**
 * Refuses a selected name that is not an entry field of the route's REST answer (400, `details.parameter` `select`
 * and `details.field`). `content.<path>`s are the content subgraph's to check against the type's schema.
 */
export function assertSelectable(names: readonly string[], shape: RestShape): void {
  const members = entryShape(shape);
  for (const field of names) {
    if (field === '' || field.startsWith(`${DOCUMENT}.`)) continue;
    if (!members.has(field) || field === 'includes')
      throw new BadRequestError(`select names an unknown field "${field}".`, { parameter: SELECT_ARGUMENT, field });
  }
}

/** The REST body with its entries cut down to the selected fields (`id` always; `content` when any of it is named). */
export function selectFields(body: unknown, names: readonly string[]): unknown {
  if (body === null || typeof body !== 'object') return body;
  const kept = new Set(ALWAYS);
  for (const name of names) kept.add(name.startsWith(`${DOCUMENT}.`) ? DOCUMENT : name);
  const entry = (value: unknown) => {
    if (value === null || typeof value !== 'object') return value;
    const source = value as Record<string, unknown>;
    return Object.fromEntries(Object.keys(source).flatMap((k) => (kept.has(k) ? [[k, source[k]]] : [])));
  };
  const answer = body as Record<string, unknown>;
  return Array.isArray(answer.data) ? { ...answer, data: answer.data.map(entry) } : entry(answer);
}
