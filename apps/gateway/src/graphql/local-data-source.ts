// In-process subgraph execution with parsed, validated documents cached: query plans repeat the same fetches.
import type { GraphQLDataSource, GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import type { GatewayGraphQLResponse } from '@apollo/server-gateway-interface';
import { knownErrorOf } from '@cp/errors';
import { execute, GraphQLError, parse, validate, type DocumentNode, type GraphQLSchema } from 'graphql';

const MAX_DOCUMENTS = 1000;

export class CachedLocalDataSource implements GraphQLDataSource {
  private readonly documents = new Map<string, DocumentNode | readonly GraphQLError[]>();

  constructor(private readonly schema: GraphQLSchema) {}

  async process({ request, context }: GraphQLDataSourceProcessOptions): Promise<GatewayGraphQLResponse> {
    const document = this.document(request.query!);
    if (!('kind' in document)) return { errors: document.map((e) => e.toJSON()) };
    const result = await execute({
      schema: this.schema,
      document,
      variableValues: request.variables,
      operationName: request.operationName,
      contextValue: context,
    });
    return {
      data: result.data as GatewayGraphQLResponse['data'],
      errors: result.errors?.map((e) => withKnownCode(e).toJSON()),
    };
  }

  private document(query: string): DocumentNode | readonly GraphQLError[] {
    let cached = this.documents.get(query);
    if (!cached) {
      try {
        const document = parse(query);
        const errors = validate(this.schema, document);
        cached = errors.length > 0 ? errors : document;
      } catch (e) {
        cached = [e as GraphQLError];
      }
      // Plans are few; a full cache is simply reset rather than tracked for recency.
      if (this.documents.size >= MAX_DOCUMENTS) this.documents.clear();
      this.documents.set(query, cached);
    }
    return cached;
  }
}

/**
 * `toJSON` drops `originalError`: a database's refusal of a client value (400) or a database that cannot be reached
 * (503) must keep its code across (see knownErrorOf).
 */
export function withKnownCode(error: GraphQLError): GraphQLError {
  const known = knownErrorOf(error);
  return known
    ? new GraphQLError(known.message, { nodes: error.nodes, path: error.path, extensions: known.extensions })
    : error;
}
