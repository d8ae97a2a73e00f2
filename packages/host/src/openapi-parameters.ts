// Pagination parameters as OpenAPI, for the routes of every module: `limit` 1..100 (default 20), cursor `lastKey`
// (alias `afterKey`), offset `page` (1-based).
import type { OpenAPIV3 } from 'openapi-types';

export const LIMIT: OpenAPIV3.SchemaObject = { type: 'integer', minimum: 1, maximum: 100, default: 20 };
export const PAGE: OpenAPIV3.SchemaObject = { type: 'integer', minimum: 1, default: 1 };

const query = (name: string, schema: OpenAPIV3.SchemaObject, description: string): OpenAPIV3.ParameterObject => ({
  in: 'query',
  name,
  required: false,
  schema,
  description,
});

export const PAGINATION_PARAMETERS = {
  cursor: [
    query('limit', LIMIT, 'Items per page, 1 to 100 (default 20); outside that range is 400.'),
    query(
      'lastKey',
      { type: 'string' },
      'Opaque cursor from the previous page’s `pagination.lastKey`; a tampered one is 400.',
    ),
    query('afterKey', { type: 'string' }, 'Alias of `lastKey`.'),
  ],
  offset: [
    query('page', PAGE, '1-based page (default 1).'),
    query('limit', LIMIT, 'Items per page, 1 to 100 (default 20).'),
  ],
};

/** Applies the pagination bounds to the query parameters sofa derived from GraphQL arguments of the same names. */
export function withPaginationBounds(parameter: OpenAPIV3.ParameterObject): OpenAPIV3.ParameterObject {
  if (parameter.in !== 'query') return parameter;
  if (parameter.name === 'limit') return { ...parameter, schema: LIMIT };
  if (parameter.name === 'page') return { ...parameter, schema: PAGE };
  return parameter;
}
