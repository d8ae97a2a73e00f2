// REST at /app/v1 and /api/v1, derived by sofa from the gateway's schema and executed through Apollo (same plan as GraphQL).
import type { ApolloServer } from '@apollo/server';
import { AppError, BadRequestError, toErrorEnvelope, UnauthorizedError, ValidationFailedError, primaryError } from '@cp/errors';
import type { Context, RestRoute, RestRoutes } from '@cp/graphql';
import { filterSchema } from '@graphql-tools/utils';
import type { Request as ExpressRequest, Response as ExpressResponse } from 'express';
import type { ExecutionResult, GraphQLArgument, GraphQLSchema } from 'graphql';
import { createSofa, createSofaRouter } from 'sofa-api';
import { assertQueryParameters } from './query-parameters';
import { edgeContext } from './request-scope';
import { sendError } from './send-error';

export type RouteFamily = 'app' | 'api';

export const BASE_PATHS: Record<RouteFamily, string> = { app: '/app/v1', api: '/api/v1' };

interface CompiledRoute extends RestRoute {
  field: string;
  pattern: RegExp;
  aliasPattern?: RegExp;
  args: readonly GraphQLArgument[];
}

export interface RestOptions {
  family: RouteFamily;
  schema: GraphQLSchema;
  apollo: ApolloServer<Context>;
  routes: RestRoutes;
  maxBodyBytes: number;
}

/** Routes anyone may call without a credential. */
const PUBLIC_FIELDS = new Set(['Mutation.login']);

export function createRestHandler(options: RestOptions) {
  const basePath = BASE_PATHS[options.family];
  const routes = compileRoutes(options.schema, options.routes, options.family);
  const fields = new Set(routes.map((r) => r.field));
  const schema = filterSchema({
    schema: options.schema,
    rootFieldFilter: (operation, name) => fields.has(`${operation}.${name}`),
  });
  const config = createSofa({
    schema,
    basePath,
    routes: Object.fromEntries(routes.map((r) => [r.field, { method: r.method, path: r.path, responseStatus: r.responseStatus }])),
    context: ({ cp }: { cp: Context }) => cp,
    async execute({ document, variableValues, contextValue, operationName }) {
      const response = await options.apollo.executeOperation(
        { query: document as never, variables: variableValues as Record<string, unknown>, operationName: operationName ?? undefined },
        { contextValue: contextValue as Context },
      );
      if (response.body.kind !== 'single') throw new Error('Incremental delivery is not supported over REST.');
      return response.body.singleResult as ExecutionResult;
    },
    errorHandler(errors) {
      const edge = edgeContext();
      const { status, body } = toErrorEnvelope(primaryError(errors, edge), edge);
      return Response.json(body, { status }) as never;
    },
  });
  // Nested users are references: sofa selects `createdBy` as `{id}` and REST sends the id string.
  // `LoginResult.user` is the signed-in user itself, and `UserList.data` the listed users: not references.
  const sofa = createSofaRouter({ ...config, models: ['User'], ignore: ['LoginResult.user', 'UserList.data'] });

  return async (req: ExpressRequest, res: ExpressResponse) => {
    try {
      const body = req.method === 'GET' || req.method === 'DELETE' ? undefined : await readJsonBody(req, options.maxBodyBytes);
      // Two operations on one method and path (D2): the alias route wins when its body test holds.
      const aliased = routes.find((r) => r.method === req.method && r.aliasPattern?.test(req.path) && r.alias!.when(body));
      const route = aliased ?? routes.find((r) => r.method === req.method && r.pattern.test(req.path));
      if (!route) throw new AppError('NOT_FOUND', `No route ${req.method} ${basePath}${req.path}.`);
      const context = res.locals.context as Context;
      if (!PUBLIC_FIELDS.has(route.field)) assertFamilyPrincipal(options.family, context);
      const url = new URL(req.originalUrl, 'http://rest.local');
      if (aliased) url.pathname = url.pathname.replace(/\/?$/, aliased.path.slice(aliased.alias!.path.length));
      assertQueryParameters(route.args, url.searchParams);
      const request = new Request(url, {
        method: req.method,
        headers: { 'content-type': 'application/json' },
        // Flat bodies (the spec's) reach both flat arguments and a single `input` argument.
        body: body === undefined ? undefined : JSON.stringify({ ...body, input: body }),
      });
      const response = await sofa.fetch(request, { cp: context });
      const text = await response.text();
      res.status(response.status).type('application/json');
      res.send(response.ok && text ? JSON.stringify(toRestShape(JSON.parse(text), true)) : text);
    } catch (err) {
      sendError(res, err);
    }
  };
}

function compileRoutes(schema: GraphQLSchema, routes: RestRoutes, family: RouteFamily): CompiledRoute[] {
  return Object.entries(routes).flatMap(([field, byFamily]) => {
    const route = byFamily[family];
    if (!route) return [];
    const [operation, name] = field.split('.');
    const root = operation === 'Query' ? schema.getQueryType() : schema.getMutationType();
    const definition = root?.getFields()[name];
    if (!definition) throw new Error(`REST route ${family} ${route.method} ${route.path} names unknown field ${field}.`);
    const toPattern = (path: string) => new RegExp(`^${path.replace(/:[A-Za-z]+/g, '[^/]+')}/?$`);
    return [{ ...route, field, pattern: toPattern(route.path), aliasPattern: route.alias && toPattern(route.alias.path), args: definition.args }];
  });
}

export function assertFamilyPrincipal(family: RouteFamily, context: Context): void {
  const kind = context.principal.kind;
  if (family === 'app' && kind !== 'user') {
    throw new UnauthorizedError(kind === 'apiKey' ? 'API keys cannot use the admin API.' : 'A bearer token is required.');
  }
  if (family === 'api' && kind !== 'apiKey') throw new UnauthorizedError('An `x-api-key` header is required.');
}

async function readJsonBody(req: ExpressRequest, maxBytes: number): Promise<Record<string, unknown> | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw new AppError('PAYLOAD_TOO_LARGE', `The body exceeds ${maxBytes} bytes.`, { limit: maxBytes });
    chunks.push(chunk as Buffer);
  }
  const raw = Buffer.concat(chunks).toString('utf8');
  if (raw.trim() === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (e) {
    throw new BadRequestError('The body is not valid JSON.', { reason: (e as Error).message });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ValidationFailedError([{ path: '', message: 'must be a JSON object' }]);
  }
  return parsed as Record<string, unknown>;
}

/**
 * GraphQL result → REST body: `{id}`-only objects are references sofa selected for models, sent as the id
 * (e.g. `createdBy`); `pagination` omits absent members (D1: `lastKey` only when another page exists).
 */
function toRestShape(value: unknown, top = false): unknown {
  if (Array.isArray(value)) return value.map((v) => toRestShape(v));
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value);
  if (!top && entries.length === 1 && entries[0][0] === 'id') return entries[0][1];
  return Object.fromEntries(
    entries.map(([k, v]) => [k, k === 'pagination' && v && typeof v === 'object' ? withoutNulls(v) : toRestShape(v)]),
  );
}

const withoutNulls = (o: object) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null));
