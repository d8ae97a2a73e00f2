// REST reads that one in-process subgraph answers alone run on that subgraph's schema, without the gateway (issue 12.6).
import { operationFromDocument, Supergraph } from '@apollo/federation-internals';
import { QueryPlanner } from '@apollo/query-planner';
import type { SubgraphName } from '@cp/config';
import type { Context } from '@cp/graphql';
import { execute, getVariableValues, validate, type DocumentNode, type ExecutionResult, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { countOperation, formatOperationError } from './apollo';
import { assertListCost } from './armor';
import { withInputCode } from './local-data-source';

/**
 * The gateway plans such an operation as one fetch of the same fields from that subgraph, then copies the answer into
 * the operation's shape (`updateOutputValue`, about a seventh of an admin list's CPU). Executing the operation on the
 * subgraph's schema gives the same data and the same errors without the copy. Only what the planner itself proves
 * local qualifies: one `Fetch` node, to a subgraph served in this process, with no `requires` and no rewrites (a
 * field resolved elsewhere, `@requires`, `@fromContext` or a `@defer` keep the gateway). Remote subgraphs keep it too.
 */
export class DirectReads {
  private planner?: { supergraph: Supergraph; planner: QueryPlanner };

  constructor(
    private readonly supergraphSdl: string,
    private readonly local: Partial<Record<SubgraphName, GraphQLSchema>>,
  ) {}

  /** The in-process subgraph schema that answers `document` on its own, if there is one. Plans once per document. */
  schemaFor(document: DocumentNode): GraphQLSchema | undefined {
    // Built on first use (the gateway's own planner is private): start-up doesn't pay for a second query graph.
    this.planner ??= (() => {
      const supergraph = Supergraph.build(this.supergraphSdl);
      return { supergraph, planner: new QueryPlanner(supergraph) };
    })();
    const operation = operationFromDocument(this.planner.supergraph.apiSchema(), document);
    const node = this.planner.planner.buildQueryPlan(operation).node;
    if (node?.kind !== 'Fetch' || node.requires || node.hasDefers) return undefined;
    if (node.inputRewrites?.length || node.outputRewrites?.length || node.contextRewrites?.length) return undefined;
    const schema = this.local[node.serviceName as SubgraphName];
    return schema && validate(schema, document).length === 0 ? schema : undefined;
  }
}

/**
 * What Apollo's request pipeline adds to a plain execution on this path: the list-cost limit (checked against the
 * gateway's `apiSchema`, as for GraphQL), D4 error formatting and the operation counter. Depth and alias limits can't
 * bind: the documents are the service's own.
 */
export async function executeDirect(
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
    countOperation(operation.name?.value, { errors: [err] });
    throw err;
  }
  const result = await execute({ schema: subgraph, document, variableValues, contextValue });
  countOperation(operation.name?.value, result);
  if (!result.errors) return result;
  return { ...result, errors: result.errors.map((e) => formatOperationError(e.toJSON(), withInputCode(e))) as never };
}

/**
 * Variables the subgraph would refuse: the gateway coerces them first and answers with its own error, so such a
 * request goes through it rather than getting graphql-js's code-less one here.
 */
export function coercible(schema: GraphQLSchema, document: DocumentNode, variables: Record<string, unknown>): boolean {
  const operation = document.definitions[0] as OperationDefinitionNode;
  return !('errors' in getVariableValues(schema, operation.variableDefinitions ?? [], variables, { maxErrors: 1 }));
}
