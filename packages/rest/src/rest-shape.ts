// GraphQL result → REST body, guided by the route's operation: object fields are shaped, scalar values pass untouched.
import {
  getNamedType,
  isLeafType,
  Kind,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLNamedType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';

/**
 * How a value of the result becomes REST: a scalar or enum as it is (a JSON document is one value, whatever members it
 * holds); a reference (an object field selecting only `id`, as sofa selects models) as its id; an object member by
 * member, `pagination` without its absent (null) members (`lastKey` only when another page exists).
 */
export type RestShape =
  | { kind: 'leaf' }
  | { kind: 'reference' }
  | { kind: 'object'; members: ReadonlyMap<string, RestShape>; dropNulls: boolean };

const LEAF: RestShape = { kind: 'leaf' };
const REFERENCE: RestShape = { kind: 'reference' };

/** The shape of a route's root field value, from the operation it runs (one root field, no aliases: sofa's). */
export function restShapeOf(schema: GraphQLSchema, document: DocumentNode): RestShape {
  const operation = document.definitions.find(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  )!;
  const fragments = new Map(
    document.definitions
      .filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION)
      .map((d) => [d.name.value, d]),
  );
  const root = operation.selectionSet.selections[0];
  const rootType = operation.operation === 'mutation' ? schema.getMutationType() : schema.getQueryType();
  if (root?.kind !== Kind.FIELD || !rootType) return LEAF;
  const type = getNamedType(rootType.getFields()[root.name.value]?.type);
  // The root value itself is never a reference, whatever it selects.
  return type && root.selectionSet ? objectShape(schema, type, root.selectionSet, fragments, false) : LEAF;
}

function objectShape(
  schema: GraphQLSchema,
  type: GraphQLNamedType,
  set: SelectionSetNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  dropNulls: boolean,
): RestShape {
  const members = new Map<string, RestShape>();
  const collect = (on: GraphQLNamedType, selections: SelectionSetNode) => {
    for (const selection of selections.selections) {
      if (selection.kind === Kind.FIELD) {
        const key = selection.alias?.value ?? selection.name.value;
        const fields = 'getFields' in on ? on.getFields() : {};
        const fieldType = getNamedType(fields[selection.name.value]?.type);
        if (!fieldType || isLeafType(fieldType) || !selection.selectionSet) members.set(key, LEAF);
        else if (isReference(selection.selectionSet)) members.set(key, REFERENCE);
        else members.set(key, objectShape(schema, fieldType, selection.selectionSet, fragments, key === 'pagination'));
      } else {
        const fragment = selection.kind === Kind.INLINE_FRAGMENT ? selection : fragments.get(selection.name.value);
        const condition = fragment?.typeCondition && schema.getType(fragment.typeCondition.name.value);
        if (fragment) collect(condition ?? on, fragment.selectionSet);
      }
    }
  };
  collect(type, set);
  return { kind: 'object', members, dropNulls };
}

const isReference = (set: SelectionSetNode) =>
  set.selections.length === 1 &&
  set.selections[0].kind === Kind.FIELD &&
  set.selections[0].name.value === 'id' &&
  !set.selections[0].alias;

/**
 * The REST body of a result `value` of that shape. The result is taken as executed: object members left `undefined`
 * are dropped and list items `undefined` become null, as a JSON round trip would; scalar values are not copied.
 */
export function toRestShape(value: unknown, shape: RestShape): unknown {
  if (value === null || value === undefined || shape.kind === 'leaf') return value;
  if (Array.isArray(value)) return value.map((item) => (item === undefined ? null : toRestShape(item, shape)));
  if (typeof value !== 'object') return value;
  const source = value as Record<string, unknown>;
  if (shape.kind === 'reference') return source.id;
  const shaped: Record<string, unknown> = {};
  for (const key of Object.keys(source)) {
    const member = source[key];
    if (member === undefined || (shape.dropNulls && member === null)) continue;
    shaped[key] = toRestShape(member, shape.members.get(key) ?? LEAF);
  }
  return shaped;
}
