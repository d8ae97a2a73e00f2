// Checks that a content type's `schema` is valid JSON Schema 2020-12 (otherwise 422 VALIDATION_FAILED).
import { ValidationFailedError } from '@cp/errors';
import { assertReferenceKeywords } from '../content/content-links';
import { jsonSchema as ajv } from '../shared/json-schema';

export function assertValidJsonSchema(schema: unknown, path = '/schema'): void {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw new ValidationFailedError([{ path, message: 'must be a JSON Schema object' }]);
  }
  assertReferenceKeywords(schema, path);
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
