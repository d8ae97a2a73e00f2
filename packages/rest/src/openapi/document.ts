// Builds the OpenAPI 3.0 document of one REST family with sofa's generator, from the operations sofa routes, then adds
// what sofa doesn't know: security schemes, the error envelope, list bounds, our body flattening, and the HTTP routes
// (uploads, CDN, events) as their modules declare them.
import { COMMON_HEADERS, ERROR_RESPONSES, ERROR_SCHEMAS, errorResponses, successHeaders } from '@cp/errors';
import type { ApiFamily, RestApi } from '@cp/graphql';
import { withPaginationBounds, type HttpRoute } from '@cp/host';
import { getNamedType, isInputObjectType, type GraphQLSchema } from 'graphql';
import type { OpenAPIV3 } from 'openapi-types';
import { OpenAPI } from 'sofa-api';
import { operationFor } from '../rest-operations';
import { BASE_PATHS, compileRoutes, documentFamily, publicFields, restSchema, type CompiledRoute } from '../routes';

export interface OpenApiOptions {
  family: ApiFamily;
  /** The gateway's API schema (the one sofa derives routes from). */
  schema: GraphQLSchema;
  api: RestApi;
  /** The HTTP routes beside REST (`gatewayHttpRoutes`); each is documented in its family's document. */
  httpRoutes: readonly HttpRoute<never>[];
  version: string;
  publicUrl: string;
}

const CUSTOM_SCALARS: Record<string, OpenAPIV3.SchemaObject> = {
  DateTimeISO: { type: 'string', format: 'date-time' },
  JSON: { description: 'Any JSON value.' },
  JSONObject: { type: 'object', additionalProperties: true },
};

const SECURITY: Record<ApiFamily, Record<string, OpenAPIV3.SecuritySchemeObject>> = {
  app: {
    bearerAuth: {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
      description: 'A token from `POST /app/v1/auth/login`.',
    },
  },
  api: {
    apiKey: {
      type: 'apiKey',
      in: 'header',
      name: 'x-api-key',
      description:
        'A project API key (`cpk_live_…`), read-only: published state, or the working state for preview keys.',
    },
  },
};

const INFO: Record<ApiFamily, { title: string; description: string }> = {
  app: {
    title: 'Content Platform admin API',
    description: 'Management API at `/app/v1` (bearer JWT). Every error is `{error: {code, message, details?}}`.',
  },
  api: {
    title: 'Content Platform client API',
    description:
      'Read-only delivery API at `/api/v1` (`x-api-key`), plus the public CDN routes. Every error is `{error: {code, message, details?}}`.',
  },
};

export type OpenApiDocument = OpenAPIV3.Document;

export function buildOpenApiDocument(options: OpenApiOptions): OpenApiDocument {
  const { family } = options;
  const basePath = BASE_PATHS[family];
  const { routes: declared, shape } = options.api;
  const routes = compileRoutes(options.schema, declared, family);
  const schema = restSchema(options.schema, routes, shape.graphqlOnly);
  const isPublic = publicFields(declared);
  const generator = OpenAPI({
    schema,
    info: { ...INFO[family], version: options.version },
    customScalars: CUSTOM_SCALARS,
  });
  for (const route of routes) {
    generator.addRoute(
      {
        document: operationFor(schema, route.field, shape),
        path: route.path,
        method: route.method,
        tags: [tagOf(route.path)],
      },
      { basePath },
    );
  }
  const doc = generator.get() as OpenAPIV3.Document;
  const schemas = doc.components!.schemas as Record<string, OpenAPIV3.SchemaObject>;
  const has = (name: string) => Boolean(schemas[name]);

  for (const route of routes) {
    const operation = doc.paths[basePath + openApiPath(route.path)]![lower(route.method)] as OpenAPIV3.OperationObject;
    refineOperation(operation, route, schema, family, isPublic.has(route.field));
  }
  for (const route of options.httpRoutes.filter((r) => documentFamily(r) === family)) {
    const path = openApiPath(route.path);
    const item = (doc.paths[path] ??= {});
    const operation = knownSchemasOnly(structuredClone(route.operation), has);
    if (route.auth === 'public') operation.security = [];
    operation.parameters = [...pathParameters(path, operation.parameters ?? []), ...(operation.parameters ?? [])];
    item[lower(route.method)] = operation;
  }
  userReferencesAsIds(schemas, shape.ignore ?? []);

  doc.servers = [
    { url: '/', description: 'This service' },
    ...(options.publicUrl ? [{ url: options.publicUrl, description: 'PUBLIC_URL' }] : []),
  ];
  doc.security = [Object.fromEntries(Object.keys(SECURITY[family]).map((name) => [name, []]))];
  doc.components = {
    ...doc.components,
    schemas: { ...schemas, ...ERROR_SCHEMAS },
    securitySchemes: SECURITY[family],
    responses: ERROR_RESPONSES,
    headers: COMMON_HEADERS,
  };
  doc.tags = [
    ...new Set(
      Object.values(doc.paths).flatMap((item) =>
        Object.values(item!).flatMap((op) => (op as OpenAPIV3.OperationObject).tags ?? []),
      ),
    ),
  ]
    .sort()
    .map((name) => ({ name }));
  doc.paths = Object.fromEntries(Object.entries(doc.paths).sort(([a], [b]) => a.localeCompare(b)));
  return doc;
}

function refineOperation(
  operation: OpenAPIV3.OperationObject,
  route: CompiledRoute,
  schema: GraphQLSchema,
  family: ApiFamily,
  isPublic: boolean,
): void {
  const [root, field] = route.field.split('.');
  operation.operationId = field;
  if (!operation.description) delete operation.description;
  if (isPublic) operation.security = [];
  if (route.alias) {
    operation.description = `With a body that has none of \`typeId\`, \`name\`, \`content\`, this route is \`searchContent\`.`;
  }
  if (route.omit) {
    const notes = [
      operation.description,
      `The response leaves out ${route.omit.map((p) => `\`${p}\``).join(', ')} (what a route doesn't return, it doesn't read).`,
    ];
    operation.description = notes.filter(Boolean).join(' ');
  }
  const params = (operation.parameters ?? []) as OpenAPIV3.ParameterObject[];
  operation.parameters = params.map((p) => (p.in === 'path' ? { ...p, required: true } : withPaginationBounds(p)));
  const body = operation.requestBody as OpenAPIV3.RequestBodyObject | undefined;
  if (body) {
    const fieldDef = (root === 'Query' ? schema.getQueryType() : schema.getMutationType())!.getFields()[field];
    const input = fieldDef.args.find((a) => a.name === 'input' && isInputObjectType(getNamedType(a.type)));
    const json = body.content['application/json'].schema as OpenAPIV3.SchemaObject;
    if (input) {
      // The handler (rest-handler.ts) hands the flat body to both the `input` argument and the other arguments (the spec's flat bodies).
      const { input: _input, ...others } = json.properties ?? {};
      const inputRef = { $ref: `#/components/schemas/${getNamedType(input.type).name}` };
      body.content['application/json'].schema = Object.keys(others).length
        ? { allOf: [inputRef, { type: 'object', properties: others }] }
        : inputRef;
    }
    body.required = Boolean(input && input.type.toString().endsWith('!')) || Boolean(json.required?.length);
    if (!Object.keys(json.properties ?? {}).length && !input) delete operation.requestBody;
  }
  const success = operation.responses['200'] as OpenAPIV3.ResponseObject;
  success.description ||= 'Success.';
  success.headers = successHeaders(!isPublic);
  const status = String(route.responseStatus ?? 200);
  if (status !== '200') {
    delete operation.responses['200'];
    operation.responses[status] = success;
  }
  if (route.method !== 'GET') operation.parameters.push(...writeHeaders(route, family));
  Object.assign(
    operation.responses,
    errorResponses({ authenticated: !isPublic, write: root === 'Mutation', body: Boolean(operation.requestBody) }),
  );
}

/** `If-Match` (optimistic concurrency) and `Idempotency-Key` (safe retries) on admin writes. */
function writeHeaders(route: CompiledRoute, family: ApiFamily): OpenAPIV3.ParameterObject[] {
  if (family !== 'app' || !route.field.startsWith('Mutation.')) return [];
  const headers: OpenAPIV3.ParameterObject[] = [
    {
      in: 'header',
      name: 'If-Match',
      required: false,
      schema: { type: 'string' },
      description: 'Expected revision, e.g. `"3"`.',
    },
  ];
  if (route.method === 'POST') {
    headers.push({
      in: 'header',
      name: 'Idempotency-Key',
      required: false,
      schema: { type: 'string', maxLength: 255 },
      description: 'Retry safely.',
    });
  }
  return headers;
}

/** REST sends nested users as their id (rest-shape.ts), except the ignored fields. */
function userReferencesAsIds(schemas: Record<string, OpenAPIV3.SchemaObject>, ignore: readonly string[]): void {
  const isUserRef = (s: unknown) => (s as OpenAPIV3.ReferenceObject)?.$ref === '#/components/schemas/User';
  const asId = { type: 'string' as const, description: 'User id.' };
  for (const [typeName, schema] of Object.entries(schemas)) {
    for (const [name, prop] of Object.entries(schema.properties ?? {})) {
      if (ignore.includes(`${typeName}.${name}`)) continue;
      if (isUserRef(prop)) schema.properties![name] = asId;
      const items = (prop as OpenAPIV3.ArraySchemaObject).items;
      if (items && isUserRef(items)) schema.properties![name] = { type: 'array', items: asId };
    }
  }
}

/** A declared `$ref` to a schema this family's document lacks (sofa derives only what its routes use): any object. */
function knownSchemasOnly<T>(value: T, has: (name: string) => boolean): T {
  if (Array.isArray(value)) return value.map((v) => knownSchemasOnly(v, has)) as T;
  if (!value || typeof value !== 'object') return value;
  const ref = (value as { $ref?: unknown }).$ref;
  if (typeof ref === 'string' && ref.startsWith(SCHEMA_REF) && !has(ref.slice(SCHEMA_REF.length))) {
    return { type: 'object', additionalProperties: true } as T;
  }
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, knownSchemasOnly(v, has)])) as T;
}
const SCHEMA_REF = '#/components/schemas/';

function pathParameters(
  path: string,
  existing: (OpenAPIV3.ParameterObject | OpenAPIV3.ReferenceObject)[],
): OpenAPIV3.ParameterObject[] {
  const named = new Set(existing.map((p) => ('name' in p ? p.name : '')));
  return [...path.matchAll(/\{([^}]+)\}/g)]
    .map((m) => m[1])
    .filter((name) => !named.has(name))
    .map((name) => ({ in: 'path' as const, name, required: true, schema: { type: 'string' as const } }));
}

export const openApiPath = (path: string) => path.replace(/:([A-Za-z]+)/g, '{$1}');
const lower = (method: string) => method.toLowerCase() as OpenAPIV3.HttpMethods;

/** The tag is the resource segment after the project (or organization) path. */
function tagOf(path: string): string {
  const segments = path.split('/').filter((s) => s && !s.startsWith(':'));
  const skip = new Set(['organizations', 'projects']);
  const rest = segments.filter((s) => !skip.has(s));
  return rest[0] ?? (segments.includes('projects') ? 'projects' : 'organizations');
}
