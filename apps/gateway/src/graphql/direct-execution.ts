// Operations that one in-process subgraph answers alone run on that subgraph's schema, without the gateway.
import type { Experimental_DidResolveQueryPlanCallback } from '@apollo/gateway';
import type { ApolloServer } from '@apollo/server';
import type { GatewayExecutor, GatewayInterface } from '@apollo/server-gateway-interface';
import type { SubgraphName } from '@cp/config';
import type { Context } from '@cp/graphql';
import { counter } from '@cp/metrics';
import type { RestExecute, RestOperation } from '@cp/rest';
import {
  getVariableValues,
  GraphQLError,
  validate,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { createHash } from 'node:crypto';
import { formatOperationError, OperationCounter } from './apollo';
import { assertListCost } from './armor';
import { executeCompiled } from './compiled-execution';
import { namesAny } from './names-in';
import { withKnownCode } from './local-data-source';

const directRuns = counter(
  'cp_direct_executions_total',
  'Operations run on the one in-process subgraph answering them, without the gateway (REST routes and GraphQL).',
  ['api'],
);

/** Operations remembered (a full table is reset rather than tracked for recency, as the gateway's documents). */
const MAX_PLANS = 1000;

/**
 * @apollo/gateway plans such an operation as one fetch of the same fields from that subgraph, executes it there, then
 * copies the answer into the operation's shape (`updateOutputValue`); for REST, Apollo's request pipeline runs around
 * it too. Executing the operation on the subgraph's schema gives the same data and errors for a fraction of the CPU
 * (bench/RESULTS.md). Only what the gateway's own plan proves local qualifies: a query or mutation whose plan is one
 * `Fetch` node, to a subgraph served in this process, with no `requires`, rewrites or `@defer`; no introspection (the
 * subgraph's schema is not the client's); valid against the subgraph schema. Everything else, and the first request of
 * each operation (which makes the plan), goes through the gateway. Remote subgraphs always do.
 *
 * Every mutation, run here or through the gateway, answers only after `settle` (the events its transaction recorded
 * were numbered and announced to every replica): a client that reads after the answer, on any replica, sees the change.
 */
export class DirectExecution {
  private readonly plans = new Map<string, GraphQLSchema | null>();

  constructor(
    private readonly local: Partial<Record<SubgraphName, GraphQLSchema>>,
    /** Counts the operations run here, like Apollo counts the others. */
    readonly operations = new OperationCounter(),
    /** What a mutation awaits before it answers: its events announced (`EventDispatcher.settle`). */
    private readonly settle: () => Promise<void> = async () => undefined,
  ) {}

  /** For `experimental_didResolveQueryPlan`: called with every plan the gateway uses (fresh or cached). */
  readonly didResolveQueryPlan: Experimental_DidResolveQueryPlanCallback = ({ queryPlan, requestContext }) => {
    const key = planKey(requestContext.queryHash, requestContext.operationName);
    if (this.plans.has(key)) return;
    if (this.plans.size >= MAX_PLANS) this.plans.clear();
    const node = queryPlan.node;
    const single =
      // Undefined when `operationName` is "": graphql-js finds no operation of that name, the gateway plans the only one.
      (requestContext.operation?.operation === 'query' || requestContext.operation?.operation === 'mutation') &&
      node?.kind === 'Fetch' &&
      !node.requires &&
      !node.hasDefers &&
      !node.inputRewrites?.length &&
      !node.outputRewrites?.length &&
      !node.contextRewrites?.length;
    const subgraph = single ? this.local[node.serviceName as SubgraphName] : undefined;
    const direct =
      subgraph && !introspects(requestContext.document) && validate(subgraph, requestContext.document).length === 0;
    this.plans.set(key, direct ? subgraph : null);
  };

  /** The subgraph schema that answers this operation alone, once the gateway has planned it. */
  schemaFor(queryHash: string, operationName: string | null | undefined): GraphQLSchema | undefined {
    return this.plans.get(planKey(queryHash, operationName)) ?? undefined;
  }

  /** The gateway as Apollo Server sees it: its executor, except for the operations above. */
  wrap(gateway: GatewayInterface): GatewayInterface {
    return {
      onSchemaLoadOrUpdate: (callback) => gateway.onSchemaLoadOrUpdate(callback),
      stop: () => gateway.stop(),
      load: async (options) => {
        const { executor } = await gateway.load(options);
        return { executor: executor && this.executor(executor) };
      },
    };
  }

  private executor(gateway: GatewayExecutor): GatewayExecutor {
    return async (requestContext) => {
      const { operation } = requestContext;
      try {
        const subgraph = this.schemaFor(requestContext.queryHash, requestContext.operationName);
        const variableValues = requestContext.request.variables ?? {};
        // No operation: the request names one the document lacks (`operationName` is then null, like an anonymous
        // operation's, so the plan key matches one); the gateway answers "Unknown operation named …".
        if (!subgraph || !operation || !coercible(subgraph, operation, variableValues))
          return await gateway(requestContext);
        const { document, operationName, context: contextValue } = requestContext;
        directRuns.inc({ api: 'graphql' });
        const result = await executeCompiled({
          schema: subgraph,
          document,
          variableValues,
          operationName,
          contextValue,
        });
        return result.errors ? { ...result, errors: result.errors.map(asGatewayError) } : result;
      } finally {
        if (operation?.operation === 'mutation') await this.settle();
      }
    };
  }

  /**
   * REST's executor: a route's operation runs here once the gateway has planned it as one in-process subgraph's, and
   * through Apollo (the gateway's plan) otherwise, as its first request does.
   */
  restExecutor(apiSchema: GraphQLSchema, apollo: ApolloServer<Context>): RestExecute {
    // Apollo's `queryHash` of each route's text, the key of the gateway's plan for it: once per route operation.
    const hashes = new WeakMap<RestOperation, string>();
    return async (operation, variables, context) => {
      let hash = hashes.get(operation);
      if (hash === undefined) hashes.set(operation, (hash = queryHashOf(operation.text)));
      const subgraph = this.schemaFor(hash, operation.name);
      const definition = operation.document.definitions[0] as OperationDefinitionNode;
      if (subgraph && coercible(subgraph, definition, variables))
        return this.execute(apiSchema, subgraph, operation.document, variables, context);
      const response = await apollo.executeOperation(
        { query: operation.text, variables, operationName: operation.name },
        { contextValue: context },
      );
      if (response.body.kind !== 'single') throw new Error('Incremental delivery is not supported over REST.');
      return response.body.singleResult;
    };
  }

  /**
   * A REST route's operation without Apollo's request pipeline: what that pipeline adds to a plain execution here is
   * the list-cost limit (checked against the gateway's `apiSchema`, as for GraphQL), error formatting, the operation
   * counter and, for a mutation, `settle`. Depth and alias limits can't bind: the documents are the service's own.
   */
  async execute(
    apiSchema: GraphQLSchema,
    subgraph: GraphQLSchema,
    document: DocumentNode,
    variableValues: Record<string, unknown>,
    contextValue: Context,
  ): Promise<ExecutionResult> {
    const operation = document.definitions[0] as OperationDefinitionNode;
    try {
      assertListCost(apiSchema, document, operation, variableValues);
    } catch (err) {
      this.operations.count(operation.name?.value, { errors: [err] });
      throw err;
    }
    directRuns.inc({ api: 'rest' });
    let result: ExecutionResult;
    try {
      result = await executeCompiled({ schema: subgraph, document, variableValues, contextValue });
    } finally {
      if (operation.operation === 'mutation') await this.settle();
    }
    this.operations.count(operation.name?.value, result);
    if (!result.errors) return result;
    return { ...result, errors: result.errors.map((e) => formatOperationError(e.toJSON(), withKnownCode(e))) as never };
  }
}

/** As the gateway passes a subgraph's error on: its `locations` were in the subgraph's document, so it has none. */
function asGatewayError(error: GraphQLError): GraphQLError {
  const { message, path, originalError, extensions } = withKnownCode(error);
  return new GraphQLError(message, { path, originalError, extensions });
}

/** Apollo's `queryHash` of a document text (sha256, hex): the key of the gateway's plan for it. */
export function queryHashOf(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

const planKey = (queryHash: string, operationName: string | null | undefined) => `${queryHash}:${operationName ?? ''}`;

const introspects = (document: DocumentNode) => namesAny(document, 'Field', ['__schema', '__type']);

/**
 * Variables the subgraph would refuse: the gateway coerces them first and answers with its own error, so such a
 * request goes through it rather than getting graphql-js's code-less one here.
 */
export function coercible(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
): boolean {
  return !('errors' in getVariableValues(schema, operation.variableDefinitions ?? [], variables, { maxErrors: 1 }));
}
