// Runs the queries the gateway executes itself (direct execution) compiled by graphql-jit, once per document.
import {
  execute,
  getOperationAST,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLSchema,
} from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { trace } from '@opentelemetry/api';
import { namesAny } from './names-in';

const tracer = trace.getTracer('@cp/gateway');

/** An operation's compiled code, and the name and attributes of its execution span. */
interface Operation {
  query: CompiledQuery;
  span: string;
  attributes: Record<string, string>;
}
type Compiled = Operation | undefined;

/**
 * Compiled operations by schema, then document (the objects the gateway and REST keep for each operation text, so an
 * evicted document takes its compiled code with it), then operation name.
 */
const compiled = new WeakMap<GraphQLSchema, WeakMap<DocumentNode, Map<string, Compiled>>>();

function compiledFor(schema: GraphQLSchema, document: DocumentNode, operationName?: string | null): Compiled {
  let bySchema = compiled.get(schema);
  if (!bySchema) compiled.set(schema, (bySchema = new WeakMap()));
  let byName = bySchema.get(document);
  if (!byName) bySchema.set(document, (byName = new Map()));
  const name = operationName ?? '';
  if (byName.has(name)) return byName.get(name);
  // Not compiled, and so run by graphql-js: an operation graphql-jit refuses; one with `@skip` or `@include`, whose
  // members graphql-jit may order otherwise when a response key is selected more than once under such conditions
  // (graphql-js orders them by their first included selection, as the GraphQL spec's CollectFields does); and a
  // mutation, whose cost is its write (the differential test pins graphql-jit on reads).
  const query =
    namesAny(document, 'Directive', ['skip', 'include']) ||
    getOperationAST(document, operationName)?.operation !== 'query'
      ? undefined
      : compileQuery(schema, document, operationName ?? undefined);
  const result = query && isCompiledQuery(query) ? { query, ...spanOf(document, operationName) } : undefined;
  byName.set(name, result);
  return result;
}

/** The execution span OpenTelemetry's graphql instrumentation gives graphql-js's `execute` (docs/operating). */
function spanOf(document: DocumentNode, operationName?: string | null) {
  const operation = getOperationAST(document, operationName);
  const type = operation?.operation ?? 'query';
  const name = operation?.name?.value;
  const attributes = { 'graphql.operation.type': type, ...(name ? { 'graphql.operation.name': name } : {}) };
  return { span: name ? `${type} ${name}` : type, attributes };
}

/**
 * `execute` from graphql-js, answered alike (compiled-execution.test.ts compares the two on every route's operation
 * and on generated selections): graphql-jit turns the operation into one JavaScript function per document, so a read
 * does not walk the document and re-coerce its arguments on every request (bench/RESULTS.md).
 */
export async function executeCompiled(args: ExecutionArgs): Promise<ExecutionResult> {
  const { schema, document, operationName, contextValue, rootValue, variableValues } = args;
  const operation = compiledFor(schema, document, operationName);
  if (!operation) return execute(args);
  // A trace still shows the operation, with its SQL under it, as for graphql-js.
  return tracer.startActiveSpan(operation.span, { attributes: operation.attributes }, async (span) => {
    try {
      return await operation.query.query(rootValue, contextValue, variableValues ?? {});
    } finally {
      span.end();
    }
  });
}
