// Cache keys of GraphQL requests: the normalised document (or its APQ hash), operation name and variables; queries only.
import { createHash } from 'node:crypto';
import { parse, print, type DocumentNode, type OperationTypeNode } from 'graphql';
import { LRUCache } from 'lru-cache';
import { GRAPHQL_LIMITS } from '../graphql/armor';

interface DocumentInfo {
  /** sha256 of the printed (normalised) document: spacing, commas and comments don't split entries. */
  key: string;
  operations: Map<string | null, OperationTypeNode>;
}

/** Parsed once per distinct document text (and per APQ hash), so a hit costs a map lookup, not a parse. */
const byText = new LRUCache<string, DocumentInfo | false>({
  maxSize: 8 * 1024 * 1024,
  sizeCalculation: (_v, k) => k.length + 64,
});
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
  if (operationName !== undefined) return info.operations.get(operationName) === 'query';
  if (info.operations.size !== 1) return false;
  return info.operations.values().next().value === 'query';
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Marks a member Apollo refuses: such a request is answered by Apollo, never from (or into) the cache. */
const REFUSED = Symbol('refused');

/**
 * `variables` or `extensions` as Apollo reads them (runHttpQuery.ts): over GET a JSON text that must hold an object,
 * over POST an object or null. Absent and POST's null are both "none" (undefined).
 */
function member(
  source: Record<string, unknown>,
  name: 'variables' | 'extensions',
  method: string,
): Record<string, unknown> | undefined | typeof REFUSED {
  const value = source[name];
  if (value === undefined) return undefined;
  if (method === 'GET') {
    if (typeof value !== 'string') return REFUSED;
    try {
      const parsed: unknown = JSON.parse(value);
      return isRecord(parsed) ? parsed : REFUSED;
    } catch {
      return REFUSED;
    }
  }
  if (value === null) return undefined;
  return isRecord(value) ? value : REFUSED;
}

/**
 * The part of the key that comes from the request, or undefined when the request must not be cached (not a query,
 * unknown APQ hash, anything Apollo would refuse or read differently). `source` is the request's one parsed value
 * (parsed-request.ts): the query parameters of a GET (`query`, `variables`, `operationName`, `extensions`; APQ:
 * `extensions={"persistedQuery":{"version":1,"sha256Hash":…}}`), the JSON body of a POST. Two requests share a key
 * only when Apollo runs the same operation with the same variables for both.
 */
export function graphqlRequestKey(method: string | undefined, source: unknown): string | undefined {
  if ((method !== 'GET' && method !== 'POST') || !isRecord(source)) return undefined;
  const { query, operationName } = source;
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') return undefined;
  const variables = member(source, 'variables', method);
  const extensions = member(source, 'extensions', method);
  if (variables === REFUSED || extensions === REFUSED) return undefined;
  let hash: string | undefined;
  if (extensions) {
    // Only APQ's member, well-formed (Apollo refuses another version, and a hash that isn't the document's).
    const { persistedQuery, ...other } = extensions;
    if (
      Object.keys(other).length > 0 ||
      !isRecord(persistedQuery) ||
      persistedQuery.version !== 1 ||
      typeof persistedQuery.sha256Hash !== 'string'
    )
      return undefined;
    hash = persistedQuery.sha256Hash;
  }
  let info: DocumentInfo | false | undefined;
  if (typeof query === 'string' && query !== '') {
    if (hash !== undefined && createHash('sha256').update(query).digest('hex') !== hash) return undefined;
    info = describe(query);
    // An APQ registration (hash + text): remember the hash (Apollo keeps the text under it too).
    if (info && hash !== undefined) byHash.set(hash, info);
  } else if (query === undefined && hash !== undefined) {
    info = byHash.get(hash); // unknown here: Apollo answers PERSISTED_QUERY_NOT_FOUND (or knows it), uncached
  }
  if (!info || !isQuery(info, operationName ?? undefined)) return undefined;
  // `operationName` absent (or null) and "" are different requests: "" names no operation.
  return `gql\0${info.key}\0${operationName ?? '\u0001'}\0${JSON.stringify(variables ?? null)}`;
}
