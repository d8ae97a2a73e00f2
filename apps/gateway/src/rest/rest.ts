// REST at /app/v1 and /api/v1, derived by sofa from the gateway's schema and executed through Apollo (same plan as GraphQL).
import type { ApolloServer } from '@apollo/server';
import {
  AppError,
  BadRequestError,
  ERROR_CATALOGUE,
  toErrorEnvelope,
  ValidationFailedError,
  primaryError,
  type FieldError,
} from '@cp/errors';
import { assertFamilyPrincipal, type Context, type RestRoute, type RestRoutes, type ApiFamily } from '@cp/graphql';
import { filterSchema } from '@graphql-tools/utils';
import type { Request as ExpressRequest, Response as ExpressResponse } from 'express';
import {
  Kind,
  print,
  visit,
  type DocumentNode,
  type OperationDefinitionNode,
  type ExecutionResult,
  type GraphQLArgument,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';
import { coercible, queryHashOf, type DirectExecution } from '../graphql/direct-execution';
import { assertSafeJsonValue } from '../http/input-guard';
import { isJsonType, logAnsweredFailure, parsedUrl, parseJson, respond, type BodyRequest } from '@cp/edge';
import { bodyTypeErrors } from './body-types';
import { restShapeOf, toRestShape, type RestShape } from './rest-shape';
import { assertQueryParameters, liftDocumentFilters } from './query-parameters';
import { asksForIncludes, assertIncludeMember, withoutIncludes, withRootIncludes } from './includes';
import { assertSelectable, selectedNames, selectFields, selectSource } from './select';
import { operationFor, pathParameters, routeVariables } from './rest-operations';
import { GRAPHQL_ONLY_FIELDS, PUBLIC_FIELDS } from '@cp/supergraph';
import { currentScope, edgeContext } from '../http/request-scope';
import { sendError } from '../http/send-error';

export const BASE_PATHS: Record<ApiFamily, string> = { app: '/app/v1', api: '/api/v1' };

export interface CompiledRoute extends RestRoute {
  field: string;
  pattern: RegExp;
  aliasPattern?: RegExp;
  args: readonly GraphQLArgument[];
}

export interface RestOptions {
  family: ApiFamily;
  schema: GraphQLSchema;
  apollo: ApolloServer<Context>;
  /** Operations one in-process subgraph answers alone skip the gateway; without it every route goes through Apollo. */
  direct?: DirectExecution;
  routes: RestRoutes;
}

/**
 * The gateway schema cut down to the root fields a family routes (what sofa derives its operations from), without
 * the object fields only GraphQL answers (an entry's `references`, say).
 */
export function restSchema(schema: GraphQLSchema, routes: CompiledRoute[]): GraphQLSchema {
  const fields = new Set(routes.map((r) => r.field));
  return filterSchema({
    schema,
    rootFieldFilter: (operation, name) => fields.has(`${operation}.${name}`),
    objectFieldFilter: (type, name) => !GRAPHQL_ONLY_FIELDS.has(`${type}.${name}`),
  });
}

/** sofa's operation for a route (one root field) minus that route's `omit` paths. */
function withoutOmitted(document: DocumentNode, omitted: ReadonlyMap<string, readonly string[]>): DocumentNode {
  return visit(document, {
    OperationDefinition(operation) {
      const [root] = operation.selectionSet.selections;
      if (root?.kind !== Kind.FIELD) return undefined;
      const paths = omitted.get(`${operation.operation === 'query' ? 'Query' : 'Mutation'}.${root.name.value}`) ?? [];
      const selectionSet = paths.reduce(
        (set, path) => withoutPath(set, [root.name.value, ...path.split('.')]),
        operation.selectionSet,
      );
      return { ...operation, selectionSet };
    },
  });
}

function withoutPath(set: SelectionSetNode, path: readonly string[]): SelectionSetNode {
  const selections = set.selections.flatMap((s) => {
    if (s.kind !== Kind.FIELD || s.name.value !== path[0]) return [s];
    if (path.length === 1) return [];
    return [s.selectionSet ? { ...s, selectionSet: withoutPath(s.selectionSet, path.slice(1)) } : s];
  });
  return { ...set, selections };
}

/** A route's operation: sofa's document (its variables), what Apollo is sent (`omit` applied) and that text's hash. */
interface RouteOperation {
  field: string;
  document: DocumentNode;
  name: string | undefined;
  pattern: RegExp;
  sent: DocumentNode;
  text: string;
  /** A `Query` field: may run directly on its subgraph; its failures before execution are thrown, not answered. */
  read: boolean;
  hash: string;
  /** How its result becomes the REST body (rest-shape.ts). */
  shape: RestShape;
  /** The same route selecting `includes` at its root: run when the request asks for them (includes.ts). */
  withIncludes?: RouteOperation;
}

/** A route's operation as it ran: its data (the root field's value under the field's name), or the error answer. */
type RestOutcome = { data: Record<string, unknown>; shape: RestShape } | { failure: Response };

export function createRestHandler(options: RestOptions) {
  const basePath = BASE_PATHS[options.family];
  const routes = compileRoutes(options.schema, options.routes, options.family);
  const byMethod = routesByMethod(routes);
  const schema = restSchema(options.schema, routes);
  const omitted = new Map(routes.flatMap((r) => (r.omit ? [[r.field, r.omit] as const] : [])));
  /** sofa's error answer for an operation's errors (also for a request that fails before it runs, as sofa does). */
  const failure = (errors: readonly unknown[]): Response => {
    const edge = edgeContext();
    const primary = primaryError(errors as never, edge);
    const { status, body } = toErrorEnvelope(primary, edge);
    // Apollo's formatError already logged the errors of execution (they carry their code); anything else is our own.
    if (status >= 500 && (primary as { extensions?: { code?: unknown } }).extensions?.code !== body.error.code) {
      logAnsweredFailure(currentScope()?.logger, body.error.code, primary);
    }
    return Response.json(body, { status });
  };
  /**
   * Every route runs the operation sofa builds for it without sofa's router (URLPattern matching over every route, a
   * fetch Request, the body serialised and parsed back, the query string parsed once per variable): the route is
   * already known here, and its operation and variables are sofa's, reproduced (rest-operations.ts).
   */
  const operations = new Map(
    routes.map((r) => {
      const document = operationFor(schema, r.field);
      const name = (document.definitions[0] as OperationDefinitionNode).name?.value;
      // What Apollo is sent for this route (`omit` applied), and its hash: the key of the gateway's plan for it.
      // Built and printed once per route: nothing of it is redone per request.
      const withOmissions = withoutOmitted(document, omitted);
      const read = r.field.startsWith('Query.');
      const operationOf = (sent: DocumentNode): RouteOperation => {
        const text = print(sent);
        const shape = restShapeOf(schema, sent);
        return {
          field: r.field,
          document,
          name,
          pattern: pathParameters(r.path),
          sent,
          text,
          read,
          hash: queryHashOf(text),
          shape,
        };
      };
      const operation = operationOf(withoutIncludes(schema, withOmissions));
      const included = withRootIncludes(schema, withOmissions);
      if (included) operation.withIncludes = operationOf(included);
      return [r, operation] as const;
    }),
  );
  const run = async (
    route: CompiledRoute,
    pathname: string,
    query: Record<string, string>,
    body: Record<string, unknown> | undefined,
    context: Context,
  ): Promise<RestOutcome> => {
    const routeOperation = operations.get(route)!;
    const operation = (asksForIncludes(query, body) && routeOperation.withIncludes) || routeOperation;
    try {
      const path = pathname.slice(basePath.length);
      const variableValues = routeVariables(operation.document, schema, operation.pattern, path, query, body);
      // Once the gateway has planned a route's operation as one in-process subgraph's (direct-execution.ts), it runs
      // there.
      const subgraph = options.direct?.schemaFor(operation.hash, operation.name);
      let result: ExecutionResult;
      if (subgraph && coercible(subgraph, operation.sent.definitions[0] as OperationDefinitionNode, variableValues)) {
        result = await options.direct!.execute(options.schema, subgraph, operation.sent, variableValues, context);
      } else {
        const response = await options.apollo.executeOperation(
          { query: operation.text, variables: variableValues, operationName: operation.name },
          { contextValue: context },
        );
        if (response.body.kind !== 'single') throw new Error('Incremental delivery is not supported over REST.');
        result = response.body.singleResult as ExecutionResult;
      }
      if (result.errors) return { failure: failure(result.errors) };
      if (!result.data) throw new Error(`${operation.field} answered neither data nor errors.`);
      return { data: result.data as Record<string, unknown>, shape: operation.shape };
    } catch (err) {
      // A read's failures before execution are thrown (the handler answers them); sofa's router answered whatever
      // failed in a mutation's handler through its error handler.
      if (operation.read) throw err;
      return { failure: failure([err]) };
    }
  };

  return async (req: ExpressRequest, res: ExpressResponse) => {
    try {
      const body = req.method === 'GET' || req.method === 'DELETE' ? undefined : requestBody(req);
      const { route, aliased } = routeFor(byMethod, req.method, req.path, body) ?? {};
      if (!route) throw new AppError('NOT_FOUND', `No route ${req.method} ${basePath}${req.path}.`);
      // Its answer is a committed change's: never refused for its size (armor.ts `responseSizeLimit`).
      if (!operations.get(route)!.read) res.locals.mutation = true;
      const context = res.locals.context as Context;
      if (!PUBLIC_FIELDS.has(route.field)) assertFamilyPrincipal(options.family, context);
      const { path, query: parsedQuery } = parsedUrl(req);
      const url = new URL(path, 'http://rest.local');
      // Our patterns accept a trailing slash, sofa's do not: the canonical path.
      url.pathname = url.pathname.replace(/(.)\/+$/, '$1');
      if (aliased) url.pathname = url.pathname.replace(/\/?$/, route.path.slice(route.alias!.path.length));
      const query: Record<string, string> = Object.assign(Object.create(null), parsedQuery);
      const filter = liftDocumentFilters(route.args, query);
      assertQueryParameters(route.args, query);
      // `If-Match` is the `expectedRevision` argument of the resource's mutations.
      const ifMatch = req.header('if-match');
      if (ifMatch !== undefined && route.args.some((a) => a.name === 'expectedRevision')) {
        const revision = revisionFromIfMatch(ifMatch);
        if (revision !== undefined) query.expectedRevision = String(revision);
      }
      if (body !== undefined && operations.get(route)!.withIncludes) assertIncludeMember(body);
      // `select`: the entry fields are checked and kept here, the document pruned by the content subgraph (select.ts).
      const selected = selectedNames(selectSource(route.args), query, body);
      if (selected) assertSelectable(selected, operations.get(route)!.shape);
      const wrongTypes = body === undefined ? [] : bodyTypeErrors(route.args, body);
      if (wrongTypes.length) {
        // Component routes answer their field-map 400 (the one exception to 422), every other route the 422.
        if (route.bodyErrors === 'fieldMap') return sendError(res, fieldMapError(wrongTypes));
        throw new ValidationFailedError(wrongTypes);
      }
      // Flat bodies (the spec's) reach both flat arguments and a single `input` argument.
      const variables = body === undefined ? filter && { filter } : { ...body, input: body };
      const outcome = await run(route, url.pathname, query, variables, context);
      if ('failure' in outcome) {
        const { status } = outcome.failure;
        const text = await outcome.failure.text();
        if (route.bodyErrors === 'fieldMap' && status === 422) return sendFieldMapError(res, text);
        return respond(res.status(status).type('application/json'), text);
      }
      const value = outcome.data[route.field.slice(route.field.indexOf('.') + 1)];
      res.status(route.responseStatus ?? 200).type('application/json');
      const restBody = toRestShape(value, outcome.shape) as { revision?: unknown } | null;
      const shaped = selected ? selectFields(restBody, selected) : restBody;
      // One resource with a revision carries it as a strong ETag (admin responses), selected or not.
      if (options.family === 'app' && typeof restBody?.revision === 'number')
        res.setHeader('ETag', `"${restBody.revision}"`);
      respond(res, JSON.stringify(shaped));
    } catch (err) {
      sendError(res, err);
    }
  };
}

/** A family's routes by method, each list in declaration order: what `routeFor` looks requests up in. */
export function routesByMethod(routes: readonly CompiledRoute[]): ReadonlyMap<string, readonly CompiledRoute[]> {
  const byMethod = new Map<string, CompiledRoute[]>();
  for (const r of routes) byMethod.set(r.method, [...(byMethod.get(r.method) ?? []), r]);
  return byMethod;
}

/**
 * The route a request takes (`path` under the family's base path): two operations on one method and path, the
 * alias route wins when its body test holds; else the first route of the method whose pattern matches. HEAD never
 * arrives here: the pipeline's front turns it into GET (http/head-as-get.ts), so every layer answers it as GET.
 */
export function routeFor(
  byMethod: ReadonlyMap<string, readonly CompiledRoute[]>,
  method: string,
  path: string,
  body: Record<string, unknown> | undefined,
): { route: CompiledRoute; aliased: boolean } | undefined {
  const candidates = byMethod.get(method) ?? [];
  const aliased = candidates.find((r) => r.aliasPattern?.test(path) && r.alias!.when(body));
  if (aliased) return { route: aliased, aliased: true };
  const route = candidates.find((r) => r.pattern.test(path));
  return route && { route, aliased: false };
}

/**
 * `If-Match: "3"` (also `W/"3"` or a bare `3`) → 3; `*` matches any revision → undefined. Anything else can't name a
 * revision, so it becomes 0, which no resource has: the write answers 412 with the current revision.
 */
export function revisionFromIfMatch(header: string): number | undefined {
  const first = header.split(',')[0].trim();
  if (first === '*') return undefined;
  const match = /^(?:W\/)?"?(\d{1,9})"?$/.exec(first);
  return match ? Number(match[1]) : 0;
}

/** The exception for component creation: 422 `details.errors[{path, message}]` → 400 `details` `{member: message}`. */
function sendFieldMapError(res: ExpressResponse, text: string): void {
  const parsed = JSON.parse(text) as {
    error: { code: string; message: string; details?: { errors?: FieldError[] } };
  };
  if (parsed.error.code !== 'VALIDATION_FAILED') {
    return respond(res.status(422).type('application/json'), text);
  }
  sendError(res, fieldMapError(parsed.error.details?.errors ?? [], parsed.error.message));
}

/** The component refusal: 400 with the first message for each top-level member. */
function fieldMapError(errors: readonly FieldError[], message: string = ERROR_CATALOGUE.VALIDATION_FAILED.message) {
  const fields: Record<string, string> = {};
  for (const { path, message: text } of errors) fields[path.split('/')[1] || 'body'] ??= text;
  return new BadRequestError(message, fields);
}

export function compileRoutes(schema: GraphQLSchema, routes: RestRoutes, family: ApiFamily): CompiledRoute[] {
  return Object.entries(routes).flatMap(([field, byFamily]) => {
    const route = byFamily[family];
    if (!route) return [];
    const [operation, name] = field.split('.');
    const root = operation === 'Query' ? schema.getQueryType() : schema.getMutationType();
    const definition = root?.getFields()[name];
    if (!definition)
      throw new Error(`REST route ${family} ${route.method} ${route.path} names unknown field ${field}.`);
    const toPattern = (path: string) => new RegExp(`^${path.replace(/:[A-Za-z]+/g, '[^/]+')}/?$`);
    return [
      {
        ...route,
        field,
        pattern: toPattern(route.path),
        aliasPattern: route.alias && toPattern(route.alias.path),
        args: definition.args,
      },
    ];
  });
}

/**
 * A REST body: JSON (415 for another type) holding an object (422 for anything else), from the bytes the pipeline's
 * body reader kept; undefined when there is none.
 */
function requestBody(req: ExpressRequest): Record<string, unknown> | undefined {
  const raw = (req as BodyRequest).rawBody;
  if (!raw || raw.toString('utf8').trim() === '') return undefined;
  // A body is JSON and says so; multipart uploads have their own routes.
  const contentType = req.headers['content-type'];
  if (!isJsonType(contentType)) {
    const type = contentType?.split(';')[0].trim().toLowerCase() ?? null;
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'The body must be application/json.', { contentType: type });
  }
  const parsed = parseJson(raw, contentType);
  assertSafeJsonValue(parsed);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ValidationFailedError([{ path: '', message: 'must be a JSON object' }]);
  }
  return parsed as Record<string, unknown>;
}
