// `include` on REST reads: a route selects the entries' `includes` only when the request asks for them, so an answer
// without `include` is what it always was (no `includes` member, and the same single-subgraph plan).
import { BadRequestError } from '@cp/errors';
import {
  getNamedType,
  isObjectType,
  Kind,
  TypeInfo,
  visit,
  visitWithTypeInfo,
  type DocumentNode,
  type FieldNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionNode,
  type SelectionSetNode,
} from 'graphql';

/** The argument that asks for includes (a query parameter, or a member of a search body). */
export const INCLUDE_ARGUMENT = 'include';
/** The type of the `includes` fields. */
const INCLUDES_TYPE = 'ContentIncludes';

/** The document without any `includes` selection: what every route sends unless asked for includes. */
export function withoutIncludes(schema: GraphQLSchema, document: DocumentNode): DocumentNode {
  const typeInfo = new TypeInfo(schema);
  return visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Field: () => (getNamedType(typeInfo.getType())?.name === INCLUDES_TYPE ? null : undefined),
    }),
  );
}

/**
 * The document with `includes` selected once, at its root field: its entries with the members the route's own entries
 * have (its `data` items, or the root entry, the members of the entry type only), its assets as sofa selects an
 * asset. sofa's own selection stops at the first repeated type, so it never selects the included entries.
 * Undefined when the root field's value has no `includes`.
 */
export function withRootIncludes(schema: GraphQLSchema, document: DocumentNode): DocumentNode | undefined {
  const operation = document.definitions.find(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  );
  const root = operation?.selectionSet.selections[0];
  if (operation?.operation !== 'query' || root?.kind !== Kind.FIELD || !root.selectionSet) return undefined;
  const rootType = getNamedType(schema.getQueryType()?.getFields()[root.name.value]?.type);
  const includesType = isObjectType(rootType) ? getNamedType(rootType.getFields().includes?.type) : undefined;
  if (!isObjectType(includesType) || includesType.name !== INCLUDES_TYPE) return undefined;
  const entryType = getNamedType(includesType.getFields().content?.type);
  const assets = assetSelection(document);
  if (!isObjectType(entryType) || !assets) return undefined;
  const entryFields = entryType.getFields();
  const stripped = withoutIncludes(schema, document);
  const strippedOperation = stripped.definitions.find(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  )!;
  const strippedRoot = strippedOperation.selectionSet.selections[0] as FieldNode;
  const data = strippedRoot.selectionSet!.selections.find(
    (s): s is FieldNode => s.kind === Kind.FIELD && s.name.value === 'data',
  );
  const entrySet = (data ?? strippedRoot).selectionSet!;
  const entry = entrySet.selections.filter((s) => s.kind === Kind.FIELD && s.name.value in entryFields);
  const includes = field('includes', [field('content', entry), field('assets', assets.selections)]);
  const rootWithIncludes: FieldNode = {
    ...strippedRoot,
    selectionSet: { ...strippedRoot.selectionSet!, selections: [...strippedRoot.selectionSet!.selections, includes] },
  };
  return {
    ...stripped,
    definitions: stripped.definitions.map((d) =>
      d === strippedOperation
        ? { ...strippedOperation, selectionSet: { ...strippedOperation.selectionSet, selections: [rootWithIncludes] } }
        : d,
    ),
  };
}

/** Whether a request asks for includes: `include` given, as a query parameter or a body member, and not 0. */
export function asksForIncludes(
  query: Readonly<Record<string, string>>,
  body: Record<string, unknown> | undefined,
): boolean {
  const value: unknown = query[INCLUDE_ARGUMENT] ?? body?.[INCLUDE_ARGUMENT];
  // Anything else than an explicit 0 runs the resolver, which refuses values outside 0–3.
  return value !== undefined && value !== null && value !== 0 && value !== '0';
}

/**
 * A search body's `include` that is no integer (`"x"`, `1.5`) is 400 naming it, as the query parameter is, rather
 * than the 422 of a mistyped body member: the same parameter answers alike on every route. The range (0–3) is the
 * resolver's to check, for GraphQL callers too.
 */
export function assertIncludeMember(body: Record<string, unknown>): void {
  const value = body[INCLUDE_ARGUMENT];
  if (value === undefined || value === null || Number.isInteger(value)) return;
  throw new BadRequestError('include must be an integer from 0 to 3.', {
    parameter: INCLUDE_ARGUMENT,
    value,
  });
}

/** The selection set sofa built for an `includes` field's assets (the first one in the document). */
function assetSelection(document: DocumentNode): SelectionSetNode | undefined {
  let found: SelectionSetNode | undefined;
  visit(document, {
    Field(node) {
      if (found || node.name.value !== 'includes') return undefined;
      const assets = node.selectionSet?.selections.find(
        (s): s is FieldNode => s.kind === Kind.FIELD && s.name.value === 'assets',
      );
      found = assets?.selectionSet;
      return undefined;
    },
  });
  return found;
}

function field(name: string, selections: readonly SelectionNode[]): FieldNode {
  return {
    kind: Kind.FIELD,
    name: { kind: Kind.NAME, value: name },
    selectionSet: { kind: Kind.SELECTION_SET, selections },
  };
}
