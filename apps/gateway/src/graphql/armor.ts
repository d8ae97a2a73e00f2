// The gateway's GraphQL abuse limits (defined in @cp/graphql's limits.ts) as Apollo plugins and Express middleware.
import type { ApolloServerPlugin } from '@apollo/server';
import { BadRequestError } from '@cp/errors';
import { armorProtection, assertDocumentSize, assertListCost, GRAPHQL_LIMITS, type Context } from '@cp/graphql';
import type { NextFunction, Request, Response } from 'express';
import { addEndStep, graphqlPayload, mutationIn } from '@cp/edge';

export { GRAPHQL_LIMITS, assertListCost } from '@cp/graphql';

export function graphqlArmor() {
  const { validationRules, plugins } = armorProtection();
  return {
    validationRules,
    plugins: [...(plugins as ApolloServerPlugin<Context>[]), listCostLimit, hideSuggestionsFromClients],
    parseOptions: { maxTokens: GRAPHQL_LIMITS.maxTokens },
  };
}

/** Oversized documents are refused before Apollo reads them (tokens are counted by graphql-js's parser: `parseOptions`). */
export function documentSizeLimit(onError: (res: Response, err: unknown) => void) {
  return (req: Request, res: Response, next: NextFunction) => {
    try {
      assertDocumentSize((graphqlPayload(req) as { query?: unknown } | undefined)?.query);
    } catch (err) {
      return onError(res, err);
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
        for (const error of errors)
          (error as { message: string }).message = error.message.replace(/ ?Did you mean .+\?/g, '');
      },
    };
  },
};

/**
 * Refuses, before execution, operations whose list sizes multiply into too much work: armor's cost
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

/**
 * A backstop behind the cost limit: a response body beyond `max` (`MAX_RESPONSE_BYTES`) is not sent; the caller gets a
 * BAD_REQUEST saying so (narrow the query or page), instead of a stalled multi-megabyte answer. Reads only: a write's
 * answer always goes out. Streams (SSE) and CDN files never pass here: it only sees bodies answered whole (`respond`).
 */
export function responseSizeLimit(
  onError: (res: Response, err: unknown) => void,
  max: number,
  /** A persisted query's text by its hash (persisted-queries.ts): a mutation sent by hash is a write too. */
  persistedQuery?: (sha256Hash: string) => string | undefined,
) {
  return (req: Request, res: Response, next: NextFunction) => {
    addEndStep(res, {
      end(ending) {
        // A write's answer goes out whatever its size: its change is committed, and a refusal would have the client
        // retry what already happened. The limit is for reads, which can always ask for less.
        if (ending.size() <= max || answersWrite(req, res, persistedQuery)) return;
        res.removeHeader('Content-Length');
        res.removeHeader('ETag');
        const message = `The response would exceed ${max} bytes. Ask for fewer items or fields.`;
        onError(res, new BadRequestError(message, { limit: 'responseBytes', max }));
        return 'answered';
      },
    });
    next();
  };
}

/** True for a REST mutation route (the REST handler marks it) or a GraphQL mutation; checked only for an oversized answer. */
function answersWrite(
  req: Request,
  res: Response,
  persistedQuery: ((sha256Hash: string) => string | undefined) | undefined,
): boolean {
  return res.locals.mutation === true || mutationIn(graphqlPayload(req), persistedQuery) !== undefined;
}
