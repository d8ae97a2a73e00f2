// Checks that a content type's `schema` is valid JSON Schema 2020-12 (otherwise 422 VALIDATION_FAILED).
import { ValidationFailedError } from '@cp/errors';
import { assertReferenceKeywords } from '../content/content-links';
import { forEachSubschema, jsonSchema as ajv } from '../shared/json-schema';

export function assertValidJsonSchema(schema: unknown, path = '/schema'): void {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw new ValidationFailedError([{ path, message: 'must be a JSON Schema object' }]);
  }
  assertReferenceKeywords(schema, path);
  assertLocalizedTopLevel(schema, path);
  if (!ajv.validateSchema(schema)) {
    const errors = (ajv.errors ?? []).map((e) => ({
      path: `${path}${e.instancePath}`,
      message: e.message ?? 'is invalid',
    }));
    throw new ValidationFailedError(errors, 'The schema is not valid JSON Schema 2020-12.');
  }
  try {
    ajv.compile(schema);
  } catch (e) {
    throw new ValidationFailedError(
      [{ path, message: (e as Error).message }],
      'The schema is not valid JSON Schema 2020-12.',
    );
  }
}

/**
 * `localized` marks a top-level property (`/schema/properties/<name>`): a document stores a map of values there, which
 * filters, references and validation know how to read; deeper, nothing would.
 */
function assertLocalizedTopLevel(schema: unknown, path: string): void {
  const errors: { path: string; message: string }[] = [];
  const properties = `${path}/properties/`;
  const topLevel = (at: string) => at.startsWith(properties) && !at.slice(properties.length).includes('/');
  forEachSubschema(schema, path, (node, at) => {
    if (node.localized !== undefined && !topLevel(at))
      errors.push({ path: `${at}/localized`, message: 'applies to top-level properties only' });
  });
  if (errors.length > 0) throw new ValidationFailedError(errors, 'The schema holds `localized` below the top level.');
}
