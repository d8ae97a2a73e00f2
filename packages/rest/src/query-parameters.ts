// Checks REST query parameters against the route's GraphQL arguments before they are coerced: a parameter the route
// doesn't take, or a value of the wrong type, is 400 naming it.
import { assertDeclaredParameters } from '@cp/edge';
import { BadRequestError } from '@cp/errors';
import { getNamedType, GraphQLBoolean, GraphQLFloat, GraphQLInt, isEnumType, type GraphQLArgument } from 'graphql';

const INTEGER = /^-?\d+$/;
const NUMBER = /^-?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

export function assertQueryParameters(args: readonly GraphQLArgument[], query: Readonly<Record<string, string>>): void {
  // A misspelt or unsupported filter (`?limt=5`, a field the route doesn't filter on) would otherwise be dropped, and
  // the answer silently wider than the caller asked for.
  assertDeclaredParameters(
    args.map((a) => a.name),
    query,
  );
  for (const arg of args) {
    const value = query[arg.name];
    if (value === undefined) continue;
    const type = getNamedType(arg.type);
    let problem: string | undefined;
    // GraphQL's Int is 32-bit: a larger number would fail coercion deep inside execution instead of here.
    if (type === GraphQLInt && (!INTEGER.test(value) || Math.abs(Number(value)) > 2 ** 31 - 1))
      problem = 'must be an integer within ±2147483647';
    else if (type === GraphQLFloat && !NUMBER.test(value)) problem = 'must be a number';
    else if (type === GraphQLBoolean && value !== 'true' && value !== 'false') problem = 'must be `true` or `false`';
    else if (isEnumType(type) && !type.getValue(value)) {
      problem = `must be one of ${type
        .getValues()
        .map((v) => v.name)
        .join(', ')}`;
    }
    if (problem) throw new BadRequestError(`Query parameter "${arg.name}" ${problem}.`, { parameter: arg.name, value });
  }
}

/** `content.<path>` or `content.<path>[<op>]`: a filter on a field inside the document. */
const DOCUMENT_PARAMETER = /^(content\.[^[\]]+)(?:\[([a-z]+)\])?$/;

/**
 * Takes the document filters out of a list's query (`content.slug=launch` is `eq`, `content.price[gte]=10` names the
 * operator, `in` takes comma-separated values) as the route's `filter` argument; the values stay text, read as the
 * property's type by the service, which knows the schema. Routes without a `filter` argument keep them as unknown
 * parameters.
 */
export function liftDocumentFilters(
  args: readonly GraphQLArgument[],
  query: Record<string, string>,
): Record<string, Record<string, string>> | undefined {
  if (!args.some((a) => a.name === 'filter')) return undefined;
  let filter: Record<string, Record<string, string>> | undefined;
  for (const name of Object.keys(query)) {
    const match = DOCUMENT_PARAMETER.exec(name);
    if (!match) continue;
    const [, field, op = 'eq'] = match;
    ((filter ??= {})[field] ??= {})[op] = query[name];
    delete query[name];
  }
  if (filter && query.filter !== undefined)
    throw new BadRequestError('Send document filters as `content.<path>` parameters or as `filter`, not both.', {
      parameter: 'filter',
    });
  return filter;
}
