// GraphQL abuse limits checked before execution (D13): size, tokens, depth, cost, aliases, directives; BAD_REQUEST on violation.
import type { ApolloServerPlugin } from '@apollo/server';
import { BadRequestError } from '@cp/errors';
import type { Context } from '@cp/graphql';
import { ApolloArmor } from '@escape.tech/graphql-armor';
import type { NextFunction, Request, Response } from 'express';
import { Kind, type DocumentNode, type FragmentDefinitionNode, type GraphQLError, type GraphQLSchema, type OperationDefinitionNode, type ValidationContext } from 'graphql';
import { listAwareCost } from './list-cost';
import { graphqlPayload } from './parsed-request';

/**
 * graphql-armor's defaults (plus a character cap): every operation sofa generates for our REST read routes passes
 * them (test/access.test.ts walks them all), so none needed raising. Introspection is exempt from depth and cost.
 */
export const GRAPHQL_LIMITS = {
  maxCharacters: 15_000,
  maxTokens: 1_000,
  maxDepth: 6,
  maxCost: 5_000,
  maxAliases: 15,
  maxDirectives: 50,
  /**
   * `list-cost.ts`: fields times the list sizes they are selected under. The costliest REST read at `limit=100`
   * (content) measured 2,401; 15 aliased 100-item lists of 3 fields cost about 6,000.
   */
  maxListCost: 5_000,
} as const;

/** Armor's rejections become our BAD_REQUEST (D13) instead of its BAD_USER_INPUT. */
const report = { propagateOnRejection: false, onReject: [(ctx: ValidationContext | null, error: GraphQLError) => ctx?.reportError(new BadRequestError(error.message))] };

export function graphqlArmor() {
  const { validationRules, plugins } = new ApolloArmor({
    maxDepth: { n: GRAPHQL_LIMITS.maxDepth, ...report },
    costLimit: { maxCost: GRAPHQL_LIMITS.maxCost, ...report },
    maxAliases: { n: GRAPHQL_LIMITS.maxAliases, ...report },
    maxDirectives: { n: GRAPHQL_LIMITS.maxDirectives, ...report },
    // graphql-js's parser counts tokens itself (`parseOptions.maxTokens` below): a parse error is BAD_REQUEST.
    maxTokens: { enabled: false },
    // Replaced below: suggestions stay for administrators, who may read the schema anyway.
    blockFieldSuggestion: { enabled: false },
  }).protect();
  return {
    validationRules,
    plugins: [...(plugins as ApolloServerPlugin<Context>[]), listCostLimit, hideSuggestionsFromClients],
    parseOptions: { maxTokens: GRAPHQL_LIMITS.maxTokens },
  };
}

/** Oversized documents are refused before Apollo reads them (tokens are counted by graphql-js's parser: `parseOptions`). */
export function documentSizeLimit(onError: (res: Response, err: unknown) => void) {
  return (req: Request, res: Response, next: NextFunction) => {
    const query = (graphqlPayload(req) as { query?: unknown } | undefined)?.query;
    if (typeof query === 'string' && query.length > GRAPHQL_LIMITS.maxCharacters) {
      onError(res, new BadRequestError(`The document exceeds ${GRAPHQL_LIMITS.maxCharacters} characters.`, { limit: 'characters', max: GRAPHQL_LIMITS.maxCharacters }));
      return;
    }
    next();
  };
}

/** API key holders and anonymous callers get no "Did you mean …" hints that would map a schema they cannot introspect. */
const hideSuggestionsFromClients: ApolloServerPlugin<Context> = {
  async requestDidStart({ contextValue }) {
    if (contextValue.principal?.kind === 'user') return;
    return {
      async didEncounterErrors({ errors }) {
        for (const error of errors) (error as { message: string }).message = error.message.replace(/ ?Did you mean .+\?/g, '');
      },
    };
  },
};

/**
 * Refuses, before execution, operations whose list sizes multiply into too much work (issue 11.6): armor's cost
 * limit sees `contents(limit: 100)` as one field. Runs after validation, with the variables, for GraphQL and REST.
 */
const listCostLimit: ApolloServerPlugin<Context> = {
  async requestDidStart() {
    return {
      async didResolveOperation({ document, operation, request, schema }) {
        if (operation) assertListCost(schema, document, operation, request.variables);
      },
    };
  },
};

/** BAD_REQUEST when an operation's list-aware cost (list-cost.ts) exceeds `maxListCost`. */
export function assertListCost(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode, variables: Record<string, unknown> | undefined): void {
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments[d.name.value] = d;
  const max = GRAPHQL_LIMITS.maxListCost;
  if (listAwareCost(schema, operation, fragments, variables, max) > max) {
    throw new BadRequestError(`The operation could return too much: its cost counting list sizes exceeds ${max}. Ask for fewer items or fields.`, {
      limit: 'cost',
      max,
    });
  }
}

/**
 * A backstop behind the cost limit: a response body beyond `max` (`MAX_RESPONSE_BYTES`) is not sent; the caller gets a
 * BAD_REQUEST saying so (narrow the query or page), instead of a stalled multi-megabyte answer. Streams (SSE) and
 * CDN files never pass here: it only sees bodies sent whole with `res.end`.
 */
export function responseSizeLimit(onError: (res: Response, err: unknown) => void, max: number) {
  return (_req: Request, res: Response, next: NextFunction) => {
    const end = res.end.bind(res) as (...args: unknown[]) => Response;
    let replaced = false;
    res.end = ((...args: unknown[]) => {
      const [chunk] = args;
      const size = typeof chunk === 'string' ? Buffer.byteLength(chunk) : Buffer.isBuffer(chunk) ? chunk.length : 0;
      if (!replaced && size > max && !res.headersSent) {
        replaced = true;
        res.end = end as Response['end'];
        res.removeHeader('Content-Length');
        res.removeHeader('ETag');
        onError(res, new BadRequestError(`The response would exceed ${max} bytes. Ask for fewer items or fields.`, { limit: 'responseBytes', max }));
        return res;
      }
      return end(...args);
    }) as Response['end'];
    next();
  };
}
