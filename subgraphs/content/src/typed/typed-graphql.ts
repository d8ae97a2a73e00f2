// The typed GraphQL endpoint, free of any HTTP framework: a parsed request (caller, project, query, variables,
// operation name) in, a status and a GraphQL result out. Its HTTP mount is the gateway's.
import type { Logger } from '@cp/config';
import { BadRequestError, formatGraphQLError, graphQLResultStatus, type EdgeContext } from '@cp/errors';
import {
  armorProtection,
  assertListCost,
  authorizeClientRead,
  parseWithinLimits,
  type Context,
  type KeyVisibility,
  type ProjectScope,
} from '@cp/graphql';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  execute,
  getOperationAST,
  GraphQLError,
  specifiedRules,
  type ExecutionResult,
  type GraphQLFormattedError,
} from 'graphql';
import { projectLocales } from '../content/content-locales';
import { typedReads } from './typed-reads';
import { TypedSchemas } from './typed-schemas';

/** A GraphQL request as the HTTP layer parsed it (a GET's query parameters, or a POST's JSON body). */
export interface TypedRequest {
  context: Context;
  scope: ProjectScope;
  method: 'GET' | 'POST';
  query: unknown;
  /** An object (POST), JSON text (GET), or absent. */
  variables: unknown;
  operationName: unknown;
}

export interface TypedAnswer {
  status: number;
  body: { data?: unknown; errors?: GraphQLFormattedError[] };
  /** False when answered from a schema a rebuild is replacing: no cache may keep it. */
  cacheable: boolean;
}

/** graphql-js's rules and the gateway's depth, cost, alias and directive limits, built once. */
const RULES = [...specifiedRules, ...armorProtection().validationRules];

/** Parse and validation failures carry no code of their own: they are the client's (400). */
const clientError = (error: GraphQLError) =>
  error.extensions.code ? error : { message: error.message, extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } };

export class TypedGraphQL {
  private readonly schemas: TypedSchemas;

  constructor(deps: {
    /** A fresh entity manager for schema builds, which outlive the request that started them. */
    em: () => EntityManager;
    /** The CDN's base address (`config.http.cdnUrl`). */
    cdnUrl: string;
    logger?: Logger;
  }) {
    this.schemas = new TypedSchemas(deps.em, deps.logger);
    this.cdnUrl = deps.cdnUrl;
  }

  private readonly cdnUrl: string;

  /** An event reached this replica: a content type's change rebuilds its project's schema in the background. */
  eventArrived(event: { resourceType: string; organizationId: string; projectId?: string | null }): void {
    if (event.resourceType === 'content-types' && event.projectId)
      this.schemas.changed({ organizationId: event.organizationId, projectId: event.projectId });
  }

  /** The project's SDL, for code generators. Refusals (wrong project, …) are thrown as typed errors. */
  async sdl(context: Context, scope: ProjectScope): Promise<{ sdl: string; cacheable: boolean }> {
    await this.visibility(context, scope);
    const { schema, fresh } = await this.schemas.get(scope);
    return { sdl: schema.sdl(), cacheable: fresh };
  }

  /**
   * Runs one query. A request refused as a whole (wrong project, limits, no `query`) is thrown as a typed error; parse
   * and validation failures answer 400 with `errors`; execution errors are in `errors` beside the data.
   */
  async execute(request: TypedRequest): Promise<TypedAnswer> {
    const visibility = await this.visibility(request.context, request.scope);
    const {
      schema: { schema },
      fresh: cacheable,
    } = await this.schemas.get(request.scope);
    const edge: EdgeContext = {
      requestId: request.context.requestId,
      lang: request.context.lang,
      variablesFrom: request.method === 'GET' ? 'query' : 'body',
    };
    const format = (errors: readonly GraphQLError[], client = false) =>
      errors.map((error) => formatGraphQLError(error.toJSON(), client ? clientError(error) : error, edge));
    if (typeof request.query !== 'string' || request.query === '')
      throw new BadRequestError('A GraphQL request needs `query`: the document to run.', { parameter: 'query' });
    const operationName = typeof request.operationName === 'string' ? request.operationName : undefined;
    const variables = variablesOf(request.variables);
    let parsed: ReturnType<typeof parseWithinLimits>;
    try {
      parsed = parseWithinLimits(schema, request.query, RULES);
    } catch (err) {
      if (!(err instanceof GraphQLError) || err.extensions.code) throw err;
      return { status: 400, body: { errors: format([err], true) }, cacheable };
    }
    if (parsed.errors.length > 0) return { status: 400, body: { errors: format(parsed.errors, true) }, cacheable };
    const operation = getOperationAST(parsed.document, operationName);
    if (!operation)
      throw new BadRequestError('The document holds no such operation, or several and no `operationName`.', {
        parameter: 'operationName',
      });
    assertListCost(schema, parsed.document, operation, variables);
    const result: ExecutionResult = await execute({
      schema,
      document: parsed.document,
      variableValues: variables,
      operationName,
      contextValue: typedReads(
        request.context.em,
        request.scope,
        { visibility, compiled: false },
        this.cdnUrl,
        await projectLocales(request.context, request.scope),
      ),
    });
    const errors = result.errors && format(result.errors);
    return {
      status: graphQLResultStatus(result.data, errors) ?? 200,
      body: { ...(errors ? { errors } : {}), ...(result.data !== undefined ? { data: result.data } : {}) },
      cacheable,
    };
  }

  /** API keys of this project only (preview keys read working copies); anyone else is refused. */
  private async visibility(context: Context, scope: ProjectScope): Promise<KeyVisibility> {
    const { visibility } = await authorizeClientRead(context, scope, 'content');
    // The HTTP family rule lets only API keys here; staff read working copies as preview keys do.
    return visibility === 'admin' ? 'preview' : visibility;
  }
}

/** `variables` as an object: a GET carries JSON text; anything but an object (or nothing) is 400. */
function variablesOf(value: unknown): Record<string, unknown> | undefined {
  let variables = value;
  if (typeof value === 'string') {
    try {
      variables = JSON.parse(value);
    } catch {
      throw new BadRequestError('`variables` is not valid JSON.', { parameter: 'variables' });
    }
  }
  if (variables === undefined || variables === null) return undefined;
  if (typeof variables !== 'object' || Array.isArray(variables))
    throw new BadRequestError('`variables` must be an object.', { parameter: 'variables' });
  return variables as Record<string, unknown>;
}
