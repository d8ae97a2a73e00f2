// The HTTP mount of a project's typed GraphQL endpoint and its SDL (the endpoint itself: @cp/subgraph-content's
// TypedGraphQL, free of HTTP). Behind the family's credential check and rate limit, like every client route.
import { graphqlBody, graphqlInputGuard, graphqlPayload, respond, sendError, sendGraphQLError } from '@cp/edge';
import { errorResponses, successHeaders } from '@cp/errors';
import { JSON_LIMIT_BYTES, PROJECT_PATH, type Context } from '@cp/graphql';
import { stages, type HttpRoute } from '@cp/host';
import type { TypedGraphQL } from '@cp/subgraph-content';
import type { Request, RequestHandler, Response } from 'express';
import type { OpenAPIV3 } from 'openapi-types';
import { documentSizeLimit, responseSizeLimit } from '../graphql/armor';

export interface TypedRouteDeps {
  typed: TypedGraphQL;
  /** The client read cache's stages (cache/client-cache.ts): published keys' answers kept until their project changes. */
  cache: { graphql: RequestHandler; rest: RequestHandler };
  maxResponseBytes: number;
}

const PATH = `/api/v1${PROJECT_PATH}/graphql`;

const scopeOf = (req: Request) => ({
  organizationId: String(req.params.organizationId),
  projectId: String(req.params.projectId),
});

/** Runs the parsed request (a GET's parameters or a POST's JSON body) and answers its result. */
function execute({ typed, cache, maxResponseBytes }: TypedRouteDeps): RequestHandler {
  return stages(
    graphqlBody(JSON_LIMIT_BYTES),
    graphqlInputGuard(sendGraphQLError),
    documentSizeLimit(sendGraphQLError),
    cache.graphql,
    responseSizeLimit(sendGraphQLError, maxResponseBytes),
    async (req: Request, res: Response) => {
      try {
        const payload = (graphqlPayload(req) ?? {}) as Record<string, unknown>;
        const answer = await typed.execute({
          context: res.locals.context as Context,
          scope: scopeOf(req),
          method: req.method === 'GET' ? 'GET' : 'POST',
          query: payload.query,
          variables: payload.variables,
          operationName: payload.operationName,
        });
        if (!answer.cacheable) res.locals.uncacheable = true;
        respond(res.status(answer.status).type('application/json'), JSON.stringify(answer.body));
      } catch (err) {
        sendGraphQLError(res, err);
      }
    },
  );
}

const RESULT: OpenAPIV3.ResponseObject = {
  description: 'A GraphQL result: `data`, and `errors` with `extensions.code` when something failed.',
  headers: successHeaders(true),
  content: {
    'application/json': {
      schema: { type: 'object', properties: { data: { type: 'object' }, errors: { type: 'array', items: {} } } },
    },
  },
};

/**
 * GraphQL clients read refusals as `{errors: [{message, extensions: {code, details}}]}`, not the REST envelope; the
 * operation says so with `x-graphql-errors` (the documents' contract tests check the body against it).
 */
function graphqlErrors(options: Parameters<typeof errorResponses>[0]): Record<string, OpenAPIV3.ResponseObject> {
  const schema: OpenAPIV3.SchemaObject = {
    type: 'object',
    required: ['errors'],
    properties: {
      errors: {
        type: 'array',
        items: {
          type: 'object',
          required: ['message', 'extensions'],
          properties: {
            message: { type: 'string' },
            extensions: {
              type: 'object',
              required: ['code'],
              properties: { code: { type: 'string' }, details: { type: 'object' } },
            },
          },
        },
      },
    },
  };
  return Object.fromEntries(
    Object.keys(errorResponses(options)).map((status) => [
      status,
      {
        description: 'Refused: the code is in `errors[].extensions.code`.',
        content: { 'application/json': { schema } },
      },
    ]),
  );
}

const DESCRIPTION =
  'The project’s typed GraphQL schema, generated from its published content types: per type `t(id)` and ' +
  '`tCollection(where, order, limit, skip)`. API keys read published entries, preview keys working copies. ' +
  'See docs/api/typed-graphql.md.';

export const TYPED_HTTP_ROUTES: readonly HttpRoute<TypedRouteDeps>[] = [
  {
    method: 'post',
    path: PATH,
    family: 'api',
    auth: 'credential',
    operation: {
      operationId: 'clientTypedGraphQL',
      tags: ['typed GraphQL'],
      summary: 'Run a query on the project’s typed schema.',
      description: DESCRIPTION,
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              type: 'object',
              required: ['query'],
              properties: {
                query: { type: 'string' },
                variables: { type: 'object' },
                operationName: { type: 'string' },
              },
            },
          },
        },
      },
      responses: { '200': RESULT, ...graphqlErrors({ authenticated: true, write: false, body: true }) },
      'x-graphql-errors': true,
    } as OpenAPIV3.OperationObject,
    handler: execute,
  },
  {
    method: 'get',
    path: PATH,
    family: 'api',
    auth: 'credential',
    operation: {
      operationId: 'clientTypedGraphQLGet',
      tags: ['typed GraphQL'],
      summary: 'Run a query on the project’s typed schema (GET, cacheable).',
      description: DESCRIPTION,
      parameters: [
        { in: 'query', name: 'query', required: true, schema: { type: 'string' } },
        { in: 'query', name: 'variables', required: false, schema: { type: 'string' }, description: 'JSON.' },
        { in: 'query', name: 'operationName', required: false, schema: { type: 'string' } },
      ],
      responses: { '200': RESULT, ...graphqlErrors({ authenticated: true, write: false, body: false }) },
      'x-graphql-errors': true,
    } as OpenAPIV3.OperationObject,
    handler: execute,
  },
  {
    method: 'get',
    path: `${PATH}/schema.graphql`,
    family: 'api',
    auth: 'credential',
    operation: {
      operationId: 'clientTypedGraphQLSchema',
      tags: ['typed GraphQL'],
      summary: 'The project’s typed schema as SDL, for code generators.',
      responses: {
        '200': {
          description: 'The schema in GraphQL SDL.',
          headers: successHeaders(true),
          content: { 'text/plain': { schema: { type: 'string' } } },
        },
        ...errorResponses({ authenticated: true, write: false, body: false }),
      },
    },
    handler: ({ typed, cache }) =>
      stages(cache.rest, async (req: Request, res: Response) => {
        try {
          const { sdl, cacheable } = await typed.sdl(res.locals.context as Context, scopeOf(req));
          if (!cacheable) res.locals.uncacheable = true;
          respond(res.type('text/plain; charset=utf-8'), sdl);
        } catch (err) {
          sendError(res, err);
        }
      }),
  },
];
