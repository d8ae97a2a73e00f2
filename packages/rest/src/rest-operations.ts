// sofa's operations and variables for REST routes, reproduced so routes run without sofa's router.
import { BadRequestError } from '@cp/errors';
import type { RestShape } from '@cp/graphql';
import { buildOperationNodeForField } from '@graphql-tools/utils';
import {
  isEqualType,
  isInputObjectType,
  isScalarType,
  GraphQLBoolean,
  GraphQLError,
  Kind,
  type DocumentNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type OperationTypeNode,
  type TypeNode,
} from 'graphql';

/**
 * The operation sofa builds for a `Query.x`/`Mutation.x` field (same builder, depth, and the modules' `models` and
 * `ignore` lists).
 */
export function operationFor(schema: GraphQLSchema, field: string, shape: RestShape): DocumentNode {
  const [root, name] = field.split('.');
  const kind = (root === 'Query' ? 'query' : 'mutation') as OperationTypeNode;
  const node = buildOperationNodeForField({
    kind,
    schema,
    field: name,
    models: [...(shape.models ?? [])],
    ignore: [...(shape.ignore ?? [])],
    circularReferenceDepth: 1,
  });
  return { kind: Kind.DOCUMENT, definitions: [node] };
}

/** A route path (`/…/:id`) as a pattern whose named groups are its parameters. */
export function pathParameters(path: string): RegExp {
  return new RegExp(`^${path.replace(/:([A-Za-z]+)/g, '(?<$1>[^/]+)')}/?$`);
}

/**
 * The variables sofa would pass (its `pickParam`): each operation variable from the path parameter of its name
 * (decoded), else the request's parsed query parameters (parsed-request.ts: plain strings, as qs makes of the
 * bracket-free, repeat-free query strings the edge admits), else the body's member of that name, coerced by
 * `resolveVariable`.
 */
export function getVariables(
  document: DocumentNode,
  schema: GraphQLSchema,
  pattern: RegExp,
  path: string,
  query: Readonly<Record<string, string>>,
  body: Record<string, unknown> = {},
): Record<string, unknown> {
  const groups = pattern.exec(path)?.groups ?? {};
  const variables: Record<string, unknown> = {};
  for (const definition of (document.definitions[0] as OperationDefinitionNode).variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    const raw = name in groups ? decoded(groups[name]) : query[name] || body[name];
    if (raw === undefined || raw === null) continue;
    const value = resolveVariable(raw, definition.type, schema);
    if (value !== undefined) variables[name] = value;
  }
  return variables;
}

/**
 * A route's variables as sofa's router made them. A mutation's body reached sofa as JSON text it parsed: the same
 * round trip here (a number beyond a double's range becomes null, -0 becomes 0), one small body's stringify and
 * parse. sofa made an uncoercible variable of a mutation a GraphQL error of status 400, its code and details left
 * behind; a read's stays our BadRequestError.
 */
export function routeVariables(
  document: DocumentNode,
  schema: GraphQLSchema,
  pattern: RegExp,
  path: string,
  query: Readonly<Record<string, string>>,
  body: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const operation = (document.definitions[0] as OperationDefinitionNode).operation;
  if (operation === 'query') return getVariables(document, schema, pattern, path, query, body);
  const members = body && (JSON.parse(JSON.stringify(body)) as Record<string, unknown>);
  try {
    return getVariables(document, schema, pattern, path, query, members);
  } catch (err) {
    throw new GraphQLError((err as Error).message, { extensions: { http: { status: 400 } } });
  }
}

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new BadRequestError('The path is not valid percent-encoding.', { segment });
  }
}

/** sofa's own coercion (its `parseVariable`, which it doesn't export): scalars serialised, input objects as JSON. */
function resolveVariable(value: unknown, type: TypeNode, schema: GraphQLSchema): unknown {
  if (type.kind === Kind.NON_NULL_TYPE) return resolveVariable(value, type.type, schema);
  if (type.kind === Kind.LIST_TYPE)
    return (Array.isArray(value) ? value : [value]).map((v) => resolveVariable(v, type.type, schema));
  const named = schema.getType(type.name.value);
  try {
    if (isScalarType(named))
      return named.serialize(isEqualType(GraphQLBoolean, named) ? value === 'true' || value === true : value);
    if (isInputObjectType(named)) return value && typeof value === 'object' ? value : JSON.parse(String(value));
  } catch (err) {
    throw new BadRequestError((err as Error).message);
  }
  return value;
}
