// Abuse limits every GraphQL entry point applies before execution: the gateway and standalone subgraph services.
import { AppError, BadRequestError } from '@cp/errors';
import { ApolloArmor } from '@escape.tech/graphql-armor';
import {
  getOperationAST,
  Kind,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLError,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import { listAwareCost } from './list-cost';

/** JSON request bodies larger than this are 413 (express.json's `limit`). */
export const JSON_LIMIT_BYTES = 1024 * 1024;

/** Deeper JSON than this is refused before parsing: component trees nest a few levels per child, never hundreds. */
export const MAX_JSON_DEPTH = 128;

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
  /**
   * `list-cost.ts`: fields times the list sizes they are selected under. The costliest REST read at `limit=100`
   * (content) measured 2,401 (about 2,450 with `include`); 15 aliased 100-item lists of 3 fields cost about 6,000.
   */
  maxListCost: 5_000,
} as const;

/** Armor's rejections become our BAD_REQUEST instead of its BAD_USER_INPUT. */
const report = {
  propagateOnRejection: false,
  onReject: [
    (ctx: ValidationContext | null, error: GraphQLError) => ctx?.reportError(new BadRequestError(error.message)),
  ],
};

/** graphql-armor's validation rules and Apollo plugins for depth, cost, aliases and directives. */
export function armorProtection() {
  return new ApolloArmor({
    maxDepth: { n: GRAPHQL_LIMITS.maxDepth, ...report },
    costLimit: { maxCost: GRAPHQL_LIMITS.maxCost, ...report },
    maxAliases: { n: GRAPHQL_LIMITS.maxAliases, ...report },
    maxDirectives: { n: GRAPHQL_LIMITS.maxDirectives, ...report },
    // graphql-js's parser counts tokens itself (`parseOptions.maxTokens`): a parse error is BAD_REQUEST.
    maxTokens: { enabled: false },
    // Suggestions stay for administrators, who may read the schema anyway (the gateway hides them from others).
    blockFieldSuggestion: { enabled: false },
  }).protect();
}

/** BAD_REQUEST when the document is longer than `maxCharacters`. */
export function assertDocumentSize(query: unknown): void {
  if (typeof query === 'string' && query.length > GRAPHQL_LIMITS.maxCharacters) {
    throw new BadRequestError(`The document exceeds ${GRAPHQL_LIMITS.maxCharacters} characters.`, {
      limit: 'characters',
      max: GRAPHQL_LIMITS.maxCharacters,
    });
  }
}

/** BAD_REQUEST when an operation's list-aware cost (list-cost.ts) exceeds `maxListCost`. */
export function assertListCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown> | undefined,
): void {
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments[d.name.value] = d;
  const max = GRAPHQL_LIMITS.maxListCost;
  if (listAwareCost(schema, operation, fragments, variables, max) > max) {
    throw new BadRequestError(
      `The operation could return too much: its cost counting list sizes exceeds ${max}. Ask for fewer items or fields.`,
      {
        limit: 'cost',
        max,
      },
    );
  }
}

/**
 * express.json() (body-parser) failures as our error codes: malformed JSON 400, an oversized body 413, a charset or
 * content encoding it cannot read 415, a body cut short or longer than its `Content-Length` 400. Anything else (our
 * own `verify` refusals, which keep their code) stays as it is.
 */
export function jsonBodyError(err: unknown, limit: number = JSON_LIMIT_BYTES): unknown {
  const type = (err as { type?: string }).type;
  if (type === 'entity.parse.failed') return new AppError('BAD_REQUEST', 'The body is not valid JSON.');
  if (type === 'entity.too.large') return new AppError('PAYLOAD_TOO_LARGE', undefined, { limit });
  if (type === 'charset.unsupported' || type === 'encoding.unsupported')
    return new AppError(
      'UNSUPPORTED_MEDIA_TYPE',
      'The body’s charset or content encoding is not one the service reads (UTF-8; gzip, deflate, br).',
      {
        reason: type,
      },
    );
  if (type === 'request.aborted' || type === 'request.size.invalid')
    return new AppError('BAD_REQUEST', 'The body ended before its declared length, or went past it.', { reason: type });
  return err;
}

/** Counts nesting in raw JSON text (outside strings) so a deeply nested body is refused before `JSON.parse` sees it. */
export function assertJsonDepth(text: string, max = MAX_JSON_DEPTH): void {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (++depth > max) throw new BadRequestError(`The JSON body nests deeper than ${max} levels.`, { maxDepth: max });
    } else if (c === 125 || c === 93) depth--;
  }
}

/**
 * A document as Apollo reads it at the gateway: oversized or over-long (tokens) text is refused as BAD_REQUEST,
 * then graphql-js's rules run with armor's (depth, cost, aliases, directives), whose refusals are BadRequestErrors
 * among `errors`. For servers that parse documents themselves (the graphql-ws server). Other parse errors are thrown as
 * graphql-js raised them.
 */
export function parseWithinLimits(
  schema: GraphQLSchema,
  query: string,
  rules: readonly ValidationRule[] = [...specifiedRules, ...armorProtection().validationRules],
): { document: DocumentNode; errors: readonly GraphQLError[] } {
  assertDocumentSize(query);
  let document: DocumentNode;
  try {
    document = parse(query, { maxTokens: GRAPHQL_LIMITS.maxTokens });
  } catch (err) {
    // As the gateway answers it: Apollo's parse failure is BAD_REQUEST with graphql-js's message ("more that": sic).
    if (/Document contains more \w+ \d+ tokens/.test((err as Error).message))
      throw new BadRequestError((err as Error).message);
    throw err;
  }
  return { document, errors: validate(schema, document, rules) };
}

/**
 * The gateway's limits as one check, for servers that cannot run them as Apollo plugins per caller (a standalone
 * subgraph applies them to callers other than our gateway): size, tokens, depth, cost, aliases, directives, list cost.
 * Throws BAD_REQUEST; a document that does not parse or validate otherwise is left to Apollo's own answer.
 */
export function assertGraphQLLimits(
  schema: GraphQLSchema,
  payload: unknown,
  validationRules: readonly ValidationRule[] = armorProtection().validationRules,
): void {
  const { query, operationName, variables } = (payload ?? {}) as {
    query?: unknown;
    operationName?: unknown;
    variables?: unknown;
  };
  assertDocumentSize(query);
  if (typeof query !== 'string') return;
  let parsed: ReturnType<typeof parseWithinLimits>;
  try {
    // Armor's rules only: graphql-js's own are Apollo's to answer, and its costliest (overlapping fields) runs once.
    parsed = parseWithinLimits(schema, query, validationRules);
  } catch (err) {
    if (err instanceof BadRequestError) throw err;
    return;
  }
  const refused = parsed.errors.find((e) => e instanceof BadRequestError);
  if (refused) throw refused;
  const operation = getOperationAST(parsed.document, typeof operationName === 'string' ? operationName : undefined);
  // A GET request's variables are JSON text.
  let vars = variables;
  if (typeof vars === 'string') {
    try {
      vars = JSON.parse(vars);
    } catch {
      vars = undefined;
    }
  }
  vars = vars && typeof vars === 'object' ? vars : undefined;
  if (operation) assertListCost(schema, parsed.document, operation, vars as Record<string, unknown> | undefined);
}
