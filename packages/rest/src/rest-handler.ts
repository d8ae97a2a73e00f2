// REST at /app/v1 and /api/v1: each route runs the operation sofa derives for its root field, through the executor
// the host gives (the gateway's: the query plan, or the one local subgraph that answers it).
import {
  AppError,
  BadRequestError,
  ERROR_CATALOGUE,
  toErrorEnvelope,
  ValidationFailedError,
  primaryError,
  type FieldError,
} from '@cp/errors';
import { assertFamilyPrincipal, type ApiFamily, type Context, type RestApi } from '@cp/graphql';
import type { Request as ExpressRequest, Response as ExpressResponse } from 'express';
import {
  Kind,
  print,
  visit,
  type DocumentNode,
  type OperationDefinitionNode,
  type FormattedExecutionResult,
  type SelectionSetNode,
  type GraphQLSchema,
} from 'graphql';
import {
  assertSafeJsonValue,
  currentScope,
  edgeContext,
  isJsonType,
  logAnsweredFailure,
  parsedUrl,
  parseJson,
  respond,
  sendError,
  type BodyRequest,
} from '@cp/edge';
import { bodyTypeErrors } from './body-types';
import { restShapeOf, toRestShape, type RestShape } from './rest-shape';
import { assertQueryParameters, liftDocumentFilters } from './query-parameters';
import { asksForIncludes, assertIncludeMember, withoutIncludes, withRootIncludes } from './includes';
import { assertSelectable, selectedNames, selectFields, selectSource } from './select';
import { operationFor, pathParameters, routeVariables } from './rest-operations';
import {
  BASE_PATHS,
  compileRoutes,
  publicFields,
  restSchema,
  revisionFromIfMatch,
  routeFor,
  routesByMethod,
  type CompiledRoute,
} from './routes';

/** A route's operation as it is sent: built and printed once per route, the same object on every request. */
export interface RestOperation {
  readonly document: DocumentNode;
  readonly text: string;
  readonly name: string | undefined;
}

/** Runs a route's operation for one request. Failures before execution may throw; the handler answers them. */
export type RestExecute = (
  operation: RestOperation,
  variables: Record<string, unknown>,
  context: Context,
) => Promise<FormattedExecutionResult>;

/**
 * What the handler reads from and leaves on the response, beside its answer: the host's pipeline has put the request's
 * `Context` in `res.locals.context` (authenticated, rate limited); a mutation route sets `res.locals.mutation`, so that
 * a response size limit never refuses the answer of a committed change.
 */
export interface RestOptions {
  family: ApiFamily;
  /** The API schema the routes' root fields are found in. */
  schema: GraphQLSchema;
  api: RestApi;
  execute: RestExecute;
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

/** A route's operation: sofa's document (its variables) and what is sent (`omit` applied). */
interface RouteOperation {
  field: string;
  document: DocumentNode;
  pattern: RegExp;
  sent: RestOperation;
  /** A `Query` field: its failures before execution are thrown, not answered. */
  read: boolean;
  /** How its result becomes the REST body (rest-shape.ts). */
  shape: RestShape;
  /** The same route selecting `includes` at its root: run when the request asks for them (includes.ts). */
  withIncludes?: RouteOperation;
}

/** A route's operation as it ran: its data (the root field's value under the field's name), or the error answer. */
type RestOutcome = { data: Record<string, unknown>; shape: RestShape } | { failure: Response };

export function createRestHandler(options: RestOptions) {
  const basePath = BASE_PATHS[options.family];
  const { routes: declared, shape: declaredShape } = options.api;
  const routes = compileRoutes(options.schema, declared, options.family);
  const byMethod = routesByMethod(routes);
  const schema = restSchema(options.schema, routes, declaredShape.graphqlOnly);
  const isPublic = publicFields(declared);
  const omitted = new Map(routes.flatMap((r) => (r.omit ? [[r.field, r.omit] as const] : [])));
  /** sofa's error answer for an operation's errors (also for a request that fails before it runs, as sofa does). */
  const failure = (errors: readonly unknown[]): Response => {
    const edge = edgeContext();
    const primary = primaryError(errors as never, edge);
    const { status, body } = toErrorEnvelope(primary, edge);
    // The executor's error formatting already logged the errors of execution (they carry their code); anything else
    // is our own.
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
      const document = operationFor(schema, r.field, declaredShape);
      const name = (document.definitions[0] as OperationDefinitionNode).name?.value;
      // What is sent for this route (`omit` applied). Built and printed once per route: nothing of it is redone per
      // request, and the executor may key what it learns of the operation by it.
      const withOmissions = withoutOmitted(document, omitted);
      const read = r.field.startsWith('Query.');
      const operationOf = (sent: DocumentNode): RouteOperation => ({
        field: r.field,
        document,
        pattern: pathParameters(r.path),
        sent: { document: sent, text: print(sent), name },
        read,
        shape: restShapeOf(schema, sent),
      });
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
      const result = await options.execute(operation.sent, variableValues, context);
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
      if (!isPublic.has(route.field)) assertFamilyPrincipal(options.family, context);
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
