// GraphQL abuse limits checked before execution (D13): size, tokens, depth, cost, aliases, directives; BAD_REQUEST on violation.
import type { ApolloServerPlugin } from '@apollo/server';
import { BadRequestError } from '@cp/errors';
import type { Context } from '@cp/graphql';
import { ApolloArmor } from '@escape.tech/graphql-armor';
import type { NextFunction, Request, Response } from 'express';
import type { GraphQLError, ValidationContext } from 'graphql';

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
    plugins: [...(plugins as ApolloServerPlugin<Context>[]), hideSuggestionsFromClients],
    parseOptions: { maxTokens: GRAPHQL_LIMITS.maxTokens },
  };
}

/** Oversized documents are refused before Apollo reads them (tokens are counted by graphql-js's parser: `parseOptions`). */
export function documentSizeLimit(onError: (res: Response, err: unknown) => void) {
  return (req: Request, res: Response, next: NextFunction) => {
    const query = (req.body as { query?: unknown } | undefined)?.query ?? req.query.query;
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
