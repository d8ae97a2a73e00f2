// A list-aware cost estimate of a GraphQL operation: list arguments (`limit`, `first`) multiply what they select.
import {
  getNamedType,
  isCompositeType,
  isInputObjectType,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLField,
  type GraphQLOutputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';

/** Lists answer 20 items when no `limit` is given. */
const DEFAULT_PAGE = 20;
const LIST_ARGUMENTS = ['limit', 'first'];

/**
 * Every field instance costs 1, times the number of parents it is selected under: `contents(limit: 100) { data {
 * id name } }` costs about 200. graphql-armor's cost limit counts each field once whatever the list sizes, so 15
 * aliased `contents(limit: 100)` looked as cheap as one item. Lists without a size argument count once (their
 * length is bounded by the data, not the caller). A page's size multiplies its list members (its items), not its
 * single objects (`pagination`, `includes`): there is one of those per page. Stops counting once `stopAbove` is
 * passed.
 */
export function listAwareCost(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  fragments: Record<string, FragmentDefinitionNode>,
  variables: Record<string, unknown> | undefined,
  stopAbove = Number.MAX_SAFE_INTEGER,
): number {
  const root =
    operation.operation === 'query'
      ? schema.getQueryType()
      : operation.operation === 'mutation'
        ? schema.getMutationType()
        : schema.getSubscriptionType();
  if (!root) return 0;
  let total = 0;

  /** `page`: the size the parent field asked for, which its list members (the page's items) multiply by. */
  const visit = (
    selectionSet: SelectionSetNode,
    parent: GraphQLCompositeType,
    multiplier: number,
    page: number,
    seen: Set<string>,
  ): void => {
    for (const selection of selectionSet.selections) {
      if (total > stopAbove) return;
      if (selection.kind === Kind.FIELD) {
        // Introspection is answered from the schema, not the database.
        if (selection.name.value.startsWith('__')) continue;
        const field = fieldOf(parent, selection.name.value);
        if (!field) continue;
        // A page's list member counts once per item, as its items do; its single members once.
        total += isList(field.type) ? multiplier * page : multiplier;
        const type = getNamedType(field.type);
        if (selection.selectionSet && isCompositeType(type)) {
          const size = sizeOf(field, selection.arguments ?? [], variables);
          if (isList(field.type)) visit(selection.selectionSet, type, multiplier * page * size, 1, seen);
          else visit(selection.selectionSet, type, multiplier, size, seen);
        }
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const type = selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : parent;
        if (type && isCompositeType(type)) visit(selection.selectionSet, type, multiplier, page, seen);
      } else {
        const name = selection.name.value;
        const fragment = fragments[name];
        if (!fragment || seen.has(name)) continue;
        const type = schema.getType(fragment.typeCondition.name.value);
        if (type && isCompositeType(type))
          visit(fragment.selectionSet, type, multiplier, page, new Set([...seen, name]));
      }
    }
  };
  visit(operation.selectionSet, root, 1, 1, new Set());
  return total;
}

const isList = (type: GraphQLOutputType): boolean => isListType(isNonNullType(type) ? type.ofType : type);

function fieldOf(parent: GraphQLCompositeType, name: string): GraphQLField<unknown, unknown> | undefined {
  return isObjectType(parent) || isInterfaceType(parent) ? parent.getFields()[name] : undefined;
}

/**
 * The page size a field asks for: its `limit`/`first` argument, or that member of its `input` argument  (searches
 * take `{filter, limit, …}`), literal or variable; else its default, or 20.
 */
function sizeOf(
  field: GraphQLField<unknown, unknown>,
  args: readonly { name: { value: string }; value: ValueNode }[],
  variables: Record<string, unknown> | undefined,
): number {
  const definition = field.args.find((a) => LIST_ARGUMENTS.includes(a.name));
  const input = definition ? undefined : field.args.find((a) => a.name === 'input');
  const inputType = input && getNamedType(input.type);
  const member =
    inputType && isInputObjectType(inputType)
      ? Object.values(inputType.getFields()).find((f) => LIST_ARGUMENTS.includes(f.name))
      : undefined;
  if (!definition && !member) return 1;
  let value: unknown = (definition ?? member)!.defaultValue ?? DEFAULT_PAGE;
  const given = definition
    ? args.find((a) => a.name.value === definition.name)?.value
    : args.find((a) => a.name.value === 'input')?.value;
  if (definition) value = valueOf(given, variables) ?? value;
  else {
    // `input: { limit: 5 }`, `input: { limit: $n }` or `input: $input`.
    const object = given?.kind === Kind.OBJECT ? given : undefined;
    const fromObject = object?.fields.find((f) => f.name.value === member!.name)?.value;
    const fromVariable = given?.kind === Kind.VARIABLE ? variables?.[given.name.value] : undefined;
    value =
      (fromObject
        ? valueOf(fromObject, variables)
        : (fromVariable as Record<string, unknown> | undefined)?.[member!.name]) ?? value;
  }
  const size = typeof value === 'number' && Number.isFinite(value) ? Math.floor(value) : DEFAULT_PAGE;
  // Out-of-range sizes are refused by the resolvers (400); here they only need to stay finite.
  return Math.min(Math.max(size, 1), 10_000);
}

/** A size given as an integer literal or a variable; undefined otherwise. */
function valueOf(node: ValueNode | undefined, variables: Record<string, unknown> | undefined): unknown {
  if (node?.kind === Kind.INT) return Number(node.value);
  if (node?.kind === Kind.VARIABLE) return variables?.[node.name.value];
  return undefined;
}
