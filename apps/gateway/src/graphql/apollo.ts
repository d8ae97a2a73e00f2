// Apollo Server at /graphql: error formatting (error codes, no internals) and HTTP status for request-level failures.
import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import type { GatewayInterface } from '@apollo/server-gateway-interface';
import { BadRequestError, formatGraphQLError, graphQLResultStatus, type ErrorCode } from '@cp/errors';
import type { Context } from '@cp/graphql';
import { counter } from '@cp/metrics';
import type { GraphQLFormattedError } from 'graphql';
import { graphqlArmor } from './armor';
import { PersistedQueries } from './persisted-queries';
import { currentScope, edgeContext, logAnsweredFailure } from '@cp/edge';

/** When no data came back at all, the HTTP status follows the first error's code (401, 403, 429, …). */
const statusFromErrors: ApolloServerPlugin<Context> = {
  async requestDidStart() {
    return {
      async willSendResponse({ response }) {
        if (response.body.kind !== 'single') return;
        const { data, errors } = response.body.singleResult;
        const status = graphQLResultStatus(data, errors);
        if (status !== undefined) response.http.status = status;
      },
    };
  },
};

/**
 * The gateway cannot execute subscriptions (they live on graphql-ws, same path): over HTTP they are the client's 400,
 * refused here, where the operation is known (an APQ hash or a multi-operation document included), and nowhere else.
 */
const noSubscriptionsOverHttp: ApolloServerPlugin<Context> = {
  async requestDidStart() {
    return {
      async didResolveOperation({ operation }) {
        if (operation?.operation === 'subscription') {
          throw new BadRequestError(
            'Subscriptions are served over WebSocket: connect to /graphql with the graphql-ws protocol.',
            { transport: 'graphql-ws' },
          );
        }
      },
    };
  },
};

/**
 * No drain plugin: the service drains its HTTP server itself (`HttpDrain`) before `apollo.stop()`, so no operation can
 * arrive once Apollo is stopping ("A GraphQL operation was received during server shutdown").
 */
const operations = counter(
  'cp_graphql_operations_total',
  'GraphQL operations (HTTP and REST) by operation name and outcome.',
  ['operation', 'outcome'],
);
const OPERATION_NAME = /^[_A-Za-z][_0-9A-Za-z]{0,63}$/;
const MAX_OPERATION_NAMES = 500;

/** One service's operation counting: the names it has turned into label values are its own. */
export class OperationCounter {
  private readonly seenNames = new Set<string>();

  /** Counts an answered operation: `success`, `partial` (data and errors) or `error` (no data). */
  count(
    operationName: string | null | undefined,
    { data, errors }: { data?: Record<string, unknown> | null; errors?: readonly unknown[] },
  ): void {
    const outcome = !errors?.length
      ? 'success'
      : data && Object.values(data).some((v) => v !== null)
        ? 'partial'
        : 'error';
    operations.inc({ operation: this.label(operationName), outcome });
  }

  /** Counts what Apollo answers. */
  readonly plugin: ApolloServerPlugin<Context> = {
    requestDidStart: async () => ({
      willSendResponse: async ({ operationName, response }) => {
        if (response.body.kind === 'single') this.count(operationName, response.body.singleResult);
      },
    }),
  };

  /** Operation names are client-chosen: only well-formed ones, and at most 500 distinct, become label values. */
  private label(name: string | null | undefined): string {
    if (!name) return 'anonymous';
    if (!OPERATION_NAME.test(name)) return 'invalid';
    if (!this.seenNames.has(name)) {
      if (this.seenNames.size >= MAX_OPERATION_NAMES) return 'other';
      this.seenNames.add(name);
    }
    return name;
  }
}

/** Every error of an answer leaves with its error code and no internals; unexpected ones are logged here, once. */
export function formatOperationError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
  // Automatic persisted queries: clients (Apollo Link, CDNs' APQ support) react to these two codes by name.
  const code = formatted.extensions?.code;
  if (code === 'PERSISTED_QUERY_NOT_FOUND' || code === 'PERSISTED_QUERY_NOT_SUPPORTED')
    return { message: formatted.message, extensions: { code } };
  const result = formatGraphQLError(formatted, error, edgeContext());
  logAnsweredFailure(currentScope()?.logger, result.extensions?.code as ErrorCode, error);
  return result;
}

export function createApollo(
  gateway: GatewayInterface,
  operations = new OperationCounter(),
  persistedQueries = new PersistedQueries(),
) {
  const armor = graphqlArmor();
  return new ApolloServer<Context>({
    persistedQueries: { cache: persistedQueries.cache },
    validationRules: armor.validationRules,
    parseOptions: armor.parseOptions,
    // Batched operations (a JSON array of operations) stay refused: one HTTP request would escape the per-request limits.
    allowBatchedHttpRequests: false,
    // GET queries (APQ, CDN-cacheable) carry a credential header no browser sends cross-site without a preflight,
    // which is all CSRF prevention asks for; Apollo's default list knows only its own headers.
    csrfPrevention: {
      requestHeaders: ['x-apollo-operation-name', 'apollo-require-preflight', 'x-api-key', 'authorization'],
    },
    gateway,
    includeStacktraceInErrorResponses: false,
    // Our shutdown (exitGracefullyOnSignals) stops Apollo after the HTTP drain; Apollo's own SIGTERM handler would stop
    // it at the signal, failing the operations still running with a 500.
    stopOnTerminationSignals: false,
    introspection: true,
    formatError: formatOperationError,
    // Apollo's landing page loads from a CDN: disabled; our GraphiQL (docs/mount.ts) answers browsers instead.
    plugins: [
      ApolloServerPluginLandingPageDisabled(),
      statusFromErrors,
      noSubscriptionsOverHttp,
      operations.plugin,
      ...armor.plugins,
    ],
  });
}
