// How a content type's top-level property is typed in GraphQL: read from its JSON Schema, never trusted to be well formed.

export type Scalar = 'String' | 'Int' | 'Float' | 'Boolean';

/** A property's GraphQL shape. Everything that isn't one of the first three is `JSON`. */
export type FieldPlan =
  | { kind: 'scalar'; scalar: Scalar; list: boolean }
  /** An entry reference: `typeIds` when the schema limits the target's type. */
  | { kind: 'entry'; typeIds?: string[]; list: boolean }
  | { kind: 'asset'; list: boolean }
  | { kind: 'json' };

/** Which filter operators a property takes (the document filters', by its JSON Schema type), or only `exists`. */
export type FilterKind = Scalar | 'Reference' | 'Exists';

type Node = Record<string, unknown>;

const isObject = (value: unknown): value is Node =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const SCALARS: Record<string, Scalar> = { string: 'String', integer: 'Int', number: 'Float', boolean: 'Boolean' };

/** Keywords that make a property's shape a choice or a computation: such a property is `JSON`. */
const UNTYPEABLE = ['oneOf', 'anyOf', 'allOf', 'not', 'if', '$ref', '$dynamicRef'];

/** The one JSON type a node declares (`null` aside), or undefined for none or several. */
function singleType(node: Node): string | undefined {
  const types = (Array.isArray(node.type) ? node.type : [node.type]).filter(
    (t): t is string => typeof t === 'string' && t !== 'null',
  );
  return new Set(types).size === 1 ? types[0] : undefined;
}

/** A reference's target, as content-links.ts reads the `reference` keyword. */
function referenceOf(node: Node): FieldPlan | undefined {
  const reference = node.reference;
  if (!isObject(reference)) return undefined;
  if (reference.to === 'asset') return { kind: 'asset', list: false };
  const ids = reference.typeIds;
  return Array.isArray(ids) && ids.length > 0 && ids.every((id) => typeof id === 'string')
    ? { kind: 'entry', typeIds: [...new Set(ids as string[])], list: false }
    : { kind: 'entry', list: false };
}

/** One value's plan (a property, or an array's items), lists aside. */
function valuePlan(node: unknown): FieldPlan {
  if (!isObject(node) || UNTYPEABLE.some((k) => node[k] !== undefined)) return { kind: 'json' };
  const reference = referenceOf(node);
  if (reference) return reference;
  const type = singleType(node);
  return type !== undefined && Object.hasOwn(SCALARS, type)
    ? { kind: 'scalar', scalar: SCALARS[type], list: false }
    : { kind: 'json' };
}

/**
 * The plan of a top-level property: scalars, references and arrays of them are typed; objects, arrays of anything
 * else (or of several shapes: `prefixItems`), the component tree (`components`) and every choice are `JSON`.
 */
export function fieldPlan(property: string, node: unknown): FieldPlan {
  if (property === 'components' || !isObject(node)) return { kind: 'json' };
  if (singleType(node) !== 'array' || node.reference !== undefined) return valuePlan(node);
  if (UNTYPEABLE.some((k) => node[k] !== undefined) || node.prefixItems !== undefined) return { kind: 'json' };
  const items = valuePlan(node.items);
  return items.kind === 'json' ? items : { ...items, list: true };
}

/** The filter a property gets: its scalar's operators, a reference's (`eq`, `in`), or `exists` alone. */
export function filterKind(plan: FieldPlan): FilterKind {
  if (plan.kind === 'json' || plan.list) return 'Exists';
  return plan.kind === 'scalar' ? plan.scalar : 'Reference';
}

/** The top-level properties of a type's schema, in its order (none when it declares none, or isn't an object). */
export function topLevelProperties(schema: unknown): [string, unknown][] {
  if (!isObject(schema) || !isObject(schema.properties)) return [];
  return Object.entries(schema.properties);
}
