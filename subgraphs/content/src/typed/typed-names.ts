// The names of a project's typed GraphQL schema: safe, deterministic, and stable as types are added.

/** A GraphQL name (the spec's `Name`): ASCII letters, digits and `_`, not starting with a digit. */
const NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;

/**
 * Type names every project's schema defines itself (and GraphQL's own scalars): a content type never takes them.
 * `JSON` is the scalar of properties that can't be typed.
 */
export const RESERVED_TYPE_NAMES = [
  'Query',
  'String',
  'Int',
  'Float',
  'Boolean',
  'ID',
  'JSON',
  'Entry',
  'Sys',
  'Asset',
  'AssetTransform',
  'AssetFit',
  'AssetFormat',
  'StringFilter',
  'IntFilter',
  'FloatFilter',
  'BooleanFilter',
  'ReferenceFilter',
  'ExistsFilter',
];

/** What each content type adds beside its own type: its collection, filter and order types. */
const DERIVED = ['Collection', 'Filter', 'Order'];

/**
 * A content type's name as a GraphQL type name: PascalCase of its ASCII letters and digits (any other character
 * separates words and is dropped), `T` in front when that would start with a digit, `Type` when nothing is left.
 */
export function pascalName(name: string): string {
  const words = name.split(/[^A-Za-z0-9]+/).filter(Boolean);
  const joined = words.map((w) => w[0].toUpperCase() + w.slice(1)).join('');
  if (joined === '') return 'Type';
  return /^[0-9]/.test(joined) ? `T${joined}` : joined;
}

/** `name`, else `name2`, `name3`, … (`separator` between): the first that `taken` doesn't hold. */
export function unique(name: string, taken: (candidate: string) => boolean, separator = ''): string {
  if (!taken(name)) return name;
  for (let n = 2; ; n++) if (!taken(`${name}${separator}${n}`)) return `${name}${separator}${n}`;
}

/**
 * GraphQL type names of content types given in creation order: each type's PascalCase name, with `2`, `3`, … added
 * when that name, or one of the names it derives (`…Collection`, `…Filter`, `…Order`), is reserved or already taken by
 * an older type. An older type keeps its name when a newer one would clash. Returns the names in the same order, and
 * the set of every name now taken (for unions named later).
 */
export function typeNames(names: readonly string[]): { names: string[]; taken: Set<string> } {
  const taken = new Set(RESERVED_TYPE_NAMES);
  const clashes = (candidate: string) =>
    candidate.startsWith('__') || [candidate, ...DERIVED.map((d) => candidate + d)].some((n) => taken.has(n));
  const result = names.map((name) => {
    const chosen = unique(pascalName(name), clashes);
    for (const n of [chosen, ...DERIVED.map((d) => chosen + d)]) taken.add(n);
    return chosen;
  });
  return { names: result, taken };
}

/** The root field of a type name: its first letter in lower case (`BlogPost` → `blogPost`). */
export const rootFieldName = (typeName: string) => typeName[0].toLowerCase() + typeName.slice(1);

/**
 * Field names every content type's object type and filter define themselves. A property named like one, or starting
 * with `sys_` (the order enum's own values) or `__`, is renamed as an invalid name is.
 */
const RESERVED_FIELDS = new Set(['sys', 'name', 'AND', 'OR']);

const usable = (property: string) =>
  NAME.test(property) && !property.startsWith('__') && !property.startsWith('sys_') && !RESERVED_FIELDS.has(property);

/**
 * GraphQL field names of a schema's top-level properties, in the schema's order. A valid name is kept as it is. Any
 * other (invalid, reserved) becomes `p_` followed by the name with every character outside `[_0-9A-Za-z]` replaced by
 * `_`; when that is taken, `_2`, `_3`, … is added. Valid names are placed first, so a renamed property never takes a
 * valid property's name.
 */
export function fieldNames(properties: readonly string[]): Map<string, string> {
  const byProperty = new Map<string, string>();
  const taken = new Set<string>();
  for (const property of properties) {
    if (!usable(property)) continue;
    byProperty.set(property, property);
    taken.add(property);
  }
  for (const property of properties) {
    if (byProperty.has(property)) continue;
    const chosen = unique(`p_${property.replace(/[^_0-9A-Za-z]/g, '_')}`, (n) => taken.has(n), '_');
    byProperty.set(property, chosen);
    taken.add(chosen);
  }
  return byProperty;
}
