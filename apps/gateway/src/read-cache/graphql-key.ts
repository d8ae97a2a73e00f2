// Cache keys of GraphQL requests: the normalised document (or its APQ hash), operation name and variables; queries only.
import { createHash } from 'node:crypto';
import { parse, print, type DocumentNode, type OperationTypeNode } from 'graphql';
import { LRUCache } from 'lru-cache';
import { GRAPHQL_LIMITS } from '../armor';

interface DocumentInfo {
  /** sha256 of the printed (normalised) document: spacing, commas and comments don't split entries. */
  key: string;
  operations: Map<string | null, OperationTypeNode>;
}

/** Parsed once per distinct document text (and per APQ hash), so a hit costs a map lookup, not a parse. */
const byText = new LRUCache<string, DocumentInfo | false>({ maxSize: 8 * 1024 * 1024, sizeCalculation: (_v, k) => k.length + 64 });
const byHash = new LRUCache<string, DocumentInfo>({ max: 5000 });

function describe(text: string): DocumentInfo | false {
  const known = byText.get(text);
  if (known !== undefined) return known;
  let info: DocumentInfo | false;
  try {
    const document: DocumentNode = parse(text, { maxTokens: GRAPHQL_LIMITS.maxTokens });
    const operations = new Map<string | null, OperationTypeNode>();
    for (const def of document.definitions) {
      if (def.kind === 'OperationDefinition') operations.set(def.name?.value ?? null, def.operation);
    }
    info = { key: createHash('sha256').update(print(document)).digest('base64url'), operations };
  } catch {
    info = false; // Apollo answers the syntax error; errors are never cached
  }
  byText.set(text, info);
  return info;
}

/** The operation that runs is a query (never a mutation or subscription). */
function isQuery(info: DocumentInfo, operationName: string | undefined): boolean {
  if (operationName) return info.operations.get(operationName) === 'query';
  if (info.operations.size !== 1) return false;
  return info.operations.values().next().value === 'query';
}

function json(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return undefined;
  }
}

/**
 * The part of the key that comes from the request, or undefined when the request must not be cached (not a query,
 * unknown APQ hash, malformed). GET carries `query`, `variables`, `operationName`, `extensions` in the query string
 * (APQ: `extensions={"persistedQuery":{"version":1,"sha256Hash":…}}`), POST in the JSON body.
 */
export function graphqlRequestKey(source: Record<string, unknown> | undefined): string | undefined {
  if (!source) return undefined;
  const { query, operationName, variables } = source;
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') return undefined;
  const hash = (json(source.extensions) as { persistedQuery?: { sha256Hash?: unknown } } | undefined)?.persistedQuery?.sha256Hash;
  let info: DocumentInfo | false | undefined;
  if (typeof query === 'string') {
    info = describe(query);
    // An APQ registration (hash + text): remember the hash only when it is the text's (Apollo checks it too).
    if (info && typeof hash === 'string' && createHash('sha256').update(query).digest('hex') === hash) byHash.set(hash, info);
  } else if (query === undefined && typeof hash === 'string') {
    info = byHash.get(hash); // unknown here: Apollo answers PERSISTED_QUERY_NOT_FOUND (or knows it), uncached
  }
  if (!info || !isQuery(info, operationName ?? undefined)) return undefined;
  const vars = typeof variables === 'string' ? variables : JSON.stringify(variables ?? null);
  return `gql\0${info.key}\0${operationName ?? ''}\0${vars}`;
}
