// The one JSON Schema 2020-12 validator of content types and documents: no shared `$id` registry, linear-time regexes.
import Ajv2020 from 'ajv/dist/2020';
import type { DataValidateFunction } from 'ajv/dist/types';
import addFormats from 'ajv-formats';
import { RE2JS } from 're2js';

/**
 * `pattern` and `patternProperties` run on RE2 (re2js): a type's author can't write a pattern like `^(a+)+$` whose
 * backtracking freezes the process on one document. RE2 has no lookaround or backreferences; such a pattern doesn't
 * compile, so the type is refused (422).
 */
function re2(pattern: string): { test: (text: string) => boolean; toString: () => string } {
  const compiled = RE2JS.compile(pattern);
  // ajv keys compiled patterns by `toString()`: without it every pattern would share the first one's slot.
  return { test: (text) => compiled.matcher(text).find(), toString: () => `re2:${pattern}` };
}
re2.code = 'require("re2js").RE2JS';

/**
 * `addUsedSchema: false`: a schema's `$id` is not remembered process-wide, so one project's `$id` never collides with
 * another's (or with the same type's next version).
 */
export const jsonSchema = new Ajv2020({ strict: false, allErrors: true, addUsedSchema: false, code: { regExp: re2 } });
addFormats(jsonSchema);

/**
 * `reference` marks a property whose value is the id of another entry or of an asset: the document holds an id
 * string (whether it names something is checked against the project when the entry is saved, content-links.ts).
 */
const isId: DataValidateFunction = (_rule: unknown, data: unknown) => {
  if (typeof data === 'string') return true;
  isId.errors = [{ keyword: 'reference', message: 'must be an id (a string)', params: {} }];
  return false;
};
jsonSchema.addKeyword({ keyword: 'reference', errors: true, validate: isId });

/**
 * `localized: true` on a top-level property: the document holds one value of it per locale of the project (a map of
 * locale code → value), each valid against the property's schema (content-locales.ts).
 */
jsonSchema.addKeyword({ keyword: 'localized', metaSchema: { type: 'boolean' } });

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Whether a schema node is a localized property's. */
export const isLocalized = (node: unknown): boolean => isObject(node) && node.localized === true;

/** The schema's top-level properties marked `localized`, in the schema's order. */
export function localizedKeys(schema: Record<string, unknown>): string[] {
  const properties = schema.properties;
  if (!isObject(properties)) return [];
  return Object.keys(properties).filter((key) => isLocalized(properties[key]));
}

/** A JSON Pointer segment: `~` and `/` are escaped (RFC 6901). */
export const pointerSegment = (key: string | number) => String(key).replaceAll('~', '~0').replaceAll('/', '~1');

/** Keywords whose value is one subschema, a map of them, or a list of them (JSON Schema 2020-12). */
const ONE = [
  'items',
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
  'additionalItems',
];
const MAP = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
const LIST = ['prefixItems', 'allOf', 'anyOf', 'oneOf'];

/** Calls `visit` on every subschema of `schema` (itself included) with its JSON Pointer. */
export function forEachSubschema(
  schema: unknown,
  path: string,
  visit: (node: Record<string, unknown>, path: string) => void,
): void {
  if (!isObject(schema)) return;
  visit(schema, path);
  for (const key of ONE) forEachSubschema(schema[key], `${path}/${key}`, visit);
  for (const key of MAP) {
    const members = schema[key];
    if (isObject(members))
      for (const [name, sub] of Object.entries(members))
        forEachSubschema(sub, `${path}/${key}/${pointerSegment(name)}`, visit);
  }
  for (const key of LIST) {
    const list = schema[key];
    if (Array.isArray(list)) list.forEach((sub, i) => forEachSubschema(sub, `${path}/${key}/${i}`, visit));
  }
}
