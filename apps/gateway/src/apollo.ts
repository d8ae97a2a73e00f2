// Apollo Server at /graphql: error formatting (D4 codes, no internals) and HTTP status for request-level failures.
import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginDrainHttpServer } from '@apollo/server/plugin/drainHttpServer';
import type { ApolloGateway } from '@apollo/gateway';
import { formatGraphQLError, isErrorCode, isInternal, statusOf } from '@cp/errors';
import type { Context } from '@cp/graphql';
import type { Server } from 'node:http';
import { graphqlArmor } from './armor';
import { currentScope, edgeContext } from './request-scope';

/** When no data came back at all, the HTTP status follows the first error's code (401, 403, 429, …). */
const statusFromErrors: ApolloServerPlugin<Context> = {
  async requestDidStart() {
    return {
      async willSendResponse({ response }) {
        if (response.body.kind !== 'single') return;
        const { data, errors } = response.body.singleResult;
        const code = errors?.[0]?.extensions?.code;
        const nothing = data === null || data === undefined || Object.values(data).every((v) => v === null);
        if (nothing && isErrorCode(code) && statusOf(code) !== 500) response.http.status = statusOf(code);
      },
    };
  },
};

export function createApollo(gateway: ApolloGateway, httpServer: Server, plugins: ApolloServerPlugin<Context>[] = []) {
  const armor = graphqlArmor();
  return new ApolloServer<Context>({
    validationRules: armor.validationRules,
    parseOptions: armor.parseOptions,
    // Batched operations (a JSON array of operations) stay refused: one HTTP request would escape the per-request limits.
    allowBatchedHttpRequests: false,
    gateway,
    includeStacktraceInErrorResponses: false,
    introspection: true,
    formatError(formatted, error) {
      const result = formatGraphQLError(formatted, error, edgeContext());
      if (isInternal(result)) currentScope()?.logger.error({ err: error }, 'unexpected error');
      return result;
    },
    plugins: [ApolloServerPluginDrainHttpServer({ httpServer }), statusFromErrors, ...armor.plugins, ...plugins],
  });
}
