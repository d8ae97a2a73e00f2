// Differential: graphql-jit answers the operations the gateway runs itself exactly as graphql-js does, on the four
// subgraphs' schemas over one seeded PostgreSQL database, for an owner, published and preview keys and no one.
// Reproduce with JIT_SEED=<seed>; JIT_RUNS raises the number of generated operations (default 300).
import { clientCredentials, createAuthentication, httpCredentials, type Authentication } from '@cp/auth';
import { createLogger, loadConfig, loadJwtSecret } from '@cp/config';
import { openDatabase, sqlProjectDirectory, type Database } from '@cp/db';
import { createPostgresDatabase } from '@cp/db/testing';
import type { Context } from '@cp/graphql';
import { INITIAL_DATA, restApi, subgraphModules } from '@cp/supergraph';
import fc from 'fast-check';
import {
  execute,
  getNamedType,
  isAbstractType,
  isEnumType,
  isInputObjectType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  parse,
  print,
  typeFromAST,
  validate,
  type DocumentNode,
  type ExecutionResult,
  type FieldNode,
  type GraphQLInputType,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationFor } from '@cp/rest';
import { executeCompiled } from './compiled-execution';
import { coercible } from './direct-execution';

const SEED = Number(process.env.JIT_SEED ?? 20261126);
const RUNS = Number(process.env.JIT_RUNS ?? 300);
const ADMIN = { email: 'jit@example.com', password: 'jit-password-12345' };
const SCOPE = { organizationId: 'default', projectId: 'default' };
const VIEW = `
export interface Props { title: string }
export function metadata() { return { title: 'Hero', description: 'A hero' }; }
export default function render(props: Props) { return '<h1>' + props.title + '</h1>'; }
`;

type Caller = 'owner' | 'published' | 'preview' | 'anonymous';

describe('compiled execution (graphql-jit) against graphql-js', () => {
  const schemas = new Map<string, GraphQLSchema>();
  const headers: Record<Caller, Record<string, string>> = {
    owner: {},
    published: {},
    preview: {},
    anonymous: {},
  };
  /** Seeded ids by the type the mutation answered (`Content`, `Tag`, …), and ids that name nothing. */
  const ids = new Map<string, string[]>([['', ['default', 'nope', '00000000-0000-0000-0000-000000000000']]]);
  let db: Database;
  let auth: Authentication;
  let drop: () => Promise<void>;
  let dataDir: string;

  const contextFor = async (caller: Caller): Promise<Context> => {
    const em = db.orm.em.fork();
    const { principal } = await auth.authenticate(em, clientCredentials(httpCredentials(headers[caller])));
    return { em, principal, requestId: 'jit', lang: 'en', projects: sqlProjectDirectory(db.orm) };
  };

  const run = async (subgraph: string, query: string, variableValues: Record<string, unknown> = {}) => {
    const result = await execute({
      schema: schemas.get(subgraph)!,
      document: parse(query),
      variableValues: { ...SCOPE, ...variableValues },
      contextValue: await contextFor('owner'),
    });
    if (result.errors) throw new Error(`${query}: ${result.errors.map((e) => e.message).join('; ')}`);
    const value = Object.values(result.data!)[0] as Record<string, unknown>;
    const type = getNamedType(schemas.get(subgraph)!.getMutationType()!.getFields()[Object.keys(result.data!)[0]].type);
    if (typeof value?.id === 'string') ids.set(type.name, [...(ids.get(type.name) ?? []), value.id]);
    return value;
  };

  beforeAll(async () => {
    const pg = await createPostgresDatabase();
    drop = pg.drop;
    dataDir = mkdtempSync(join(tmpdir(), 'cp-jit-'));
    const config = loadConfig({
      DATABASE_URL: pg.url,
      DATA_DIR: dataDir,
      JWT_SECRET: 'jit-secret-jit-secret-jit-secret-00000',
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      EMBEDDINGS: 'off',
      LOG_LEVEL: 'silent',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    });
    const logger = createLogger(config);
    const modules = subgraphModules();
    db = await openDatabase({ config, modules: modules.map((m) => m.database), logger, initialData: INITIAL_DATA });
    const secret = loadJwtSecret(config);
    auth = createAuthentication(config, secret, { cacheTtlSeconds: 0 });
    for (const module of modules) {
      await module.bootstrap?.({ config, orm: db.orm, logger });
      schemas.set(module.name, (await module.build({ config, secret, auth })).schema);
    }

    const login = (await execute({
      schema: schemas.get('access')!,
      document: parse('mutation($input: LoginInput!) { login(input: $input) { token } }'),
      variableValues: { input: ADMIN },
      contextValue: { em: db.orm.em.fork(), principal: { kind: 'anonymous' }, requestId: 'jit', lang: 'en' },
    })) as ExecutionResult<{ login: { token: string } }>;
    headers.owner = { authorization: `Bearer ${login.data!.login.token}` };
    const key = async (scope: string) =>
      (await run(
        'access',
        `mutation($organizationId: ID!, $projectId: ID!) { createApiKey(organizationId: $organizationId, projectId: $projectId, input: { name: "${scope}", scope: ${scope} }) { id key } }`,
      )) as { key: string };
    headers.published = { 'x-api-key': (await key('published')).key };
    headers.preview = { 'x-api-key': (await key('preview')).key };

    const content = (operation: string, args = '') =>
      run(
        'content',
        `mutation($organizationId: ID!, $projectId: ID!${args ? `, ${args}` : ''}) { ${operation} { id } }`,
      );
    const inProject = 'organizationId: $organizationId, projectId: $projectId';
    const type = await content(
      `createContentType(${inProject}, input: { name: "Page", schema: { type: "object", properties: { title: { type: "string" }, body: { type: "string" } } } })`,
    );
    await content(`publishContentType(${inProject}, id: "${type.id}")`);
    const folder = await content(`createFolder(${inProject}, input: { name: "Docs" })`);
    await content(`createTag(${inProject}, input: { name: "news", color: "red" })`);
    const entries: string[] = [];
    for (const [i, name] of ['One', 'Two', 'Three', 'Four'].entries()) {
      const entry = await content(
        `createContent(${inProject}, input: { typeId: "${type.id}", name: "${name}", content: { title: "${name}", body: "Text ${i}" }, tags: ["news"]${i % 2 ? `, folderId: "${folder.id}"` : ''} })`,
      );
      entries.push(entry.id as string);
      // One draft, one published, one published then changed, one published then unpublished.
      if (i === 0) continue;
      await content(`publishContent(${inProject}, id: "${entry.id}")`);
      if (i === 2)
        await content(`updateContent(${inProject}, id: "${entry.id}", input: { content: { title: "Changed" } })`);
      if (i === 3) await content(`unpublishContent(${inProject}, id: "${entry.id}")`);
    }
    await run(
      'content',
      `mutation($organizationId: ID!, $projectId: ID!, $query: JSONObject!) { createSavedSearch(${inProject}, input: { name: "All", query: $query }) { id } }`,
      { query: { search: 'One', filter: { name: { neq: 'x' } } } },
    );
    await content(
      `createSchedule(${inProject}, input: { resourceType: "content", resourceId: "${entries[0]}", action: "publish", at: "${new Date(Date.now() + 86_400_000).toISOString()}" })`,
    );
    await content(
      `createWebhook(${inProject}, input: { url: "http://127.0.0.1:9/hook", eventTypes: ["content.published"] })`,
    );
    await run(
      'components',
      `mutation($organizationId: ID!, $projectId: ID!, $source: String!) { createComponent(${inProject}, input: { name: "Hero", type: "view", content: $source }) { id } }`,
      { source: VIEW },
    );
    await run('components', `mutation($organizationId: ID!, $projectId: ID!) { createPackage(${inProject}) { id } }`);
  }, 180_000);

  afterAll(async () => {
    await db?.close();
    await drop?.();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  /**
   * What a client sees of an answer: data, then each error's message, path and extensions. When several items of a
   * non-null list fail at once, the one whose error settles first is reported and nulls the list; which one that is
   * depends on timing, for either executor and between runs of one. So a path's list indices are left out, and
   * errors compared in a fixed order.
   */
  const seen = (result: ExecutionResult) =>
    JSON.parse(
      JSON.stringify({
        data: result.data,
        errors: result.errors
          ?.map(({ message, path, extensions }) => ({
            message,
            path: path?.map((key) => (typeof key === 'number' ? '#' : key)),
            extensions,
          }))
          .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
      }),
    );

  /** Both executors on the same operation and variables, each with its own request context. */
  const compare = async (
    subgraph: string,
    document: DocumentNode,
    variableValues: Record<string, unknown>,
    caller: Caller,
  ) => {
    const schema = schemas.get(subgraph)!;
    const args = { schema, document, variableValues };
    const expected = seen(await execute({ ...args, contextValue: await contextFor(caller) }));
    const actual = seen(await executeCompiled({ ...args, contextValue: await contextFor(caller) }));
    return { expected, actual };
  };

  /** Values of an input type: the seeded ids, the default scope and wrong ones, edge numbers, enum values. */
  const valueOf = (type: GraphQLInputType, name: string, answers: string, depth = 0): fc.Arbitrary<unknown> => {
    if (isNonNullType(type)) return valueOf(type.ofType, name, answers, depth);
    const maybeNull = (value: fc.Arbitrary<unknown>) =>
      fc.oneof({ weight: 12, arbitrary: value }, { weight: 1, arbitrary: fc.constant(null) });
    if (isListType(type)) return maybeNull(fc.array(valueOf(type.ofType, name, answers, depth + 1), { maxLength: 3 }));
    if (isEnumType(type)) return maybeNull(fc.constantFrom(...type.getValues().map((v) => v.name)));
    if (isInputObjectType(type)) {
      if (depth > 2) return fc.constant(null);
      const fields = Object.values(type.getFields());
      return maybeNull(
        fc.record(Object.fromEntries(fields.map((f) => [f.name, valueOf(f.type, f.name, answers, depth + 1)])), {
          requiredKeys: fields.filter((f) => isNonNullType(f.type)).map((f) => f.name),
        }),
      );
    }
    if (name === 'organizationId' || name === 'projectId')
      return fc.oneof({ weight: 9, arbitrary: fc.constant('default') }, { weight: 1, arbitrary: fc.constant('other') });
    switch (getNamedType(type).name) {
      case 'ID':
        // Mostly an id of what the field answers (a `Content` for `content(id)`), else any seeded or unknown one.
        return maybeNull(
          fc.oneof(
            { weight: ids.has(answers) ? 4 : 0, arbitrary: fc.constantFrom(...(ids.get(answers) ?? [''])) },
            { weight: 1, arbitrary: fc.constantFrom(...[...ids.values()].flat()) },
          ),
        );
      case 'Int':
        return maybeNull(fc.oneof(fc.integer({ min: -2, max: 30 }), fc.constantFrom(0, 1, 100, 1001, 2 ** 31 - 1)));
      case 'Float':
        return maybeNull(fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(0, 0.5, 1)));
      case 'Boolean':
        return maybeNull(fc.boolean());
      case 'JSON':
      case 'JSONObject':
        return maybeNull(
          fc.constantFrom(
            {},
            { name: { eq: 'One' } },
            { status: { in: ['published'] } },
            { tags: { any: ['news'] } },
            { nope: 1 },
          ),
        );
      default:
        return maybeNull(
          fc.oneof(
            fc.constantFrom(
              'One',
              'news',
              'published',
              'draft',
              '2026-01-01T00:00:00Z',
              '',
              'name',
              '-name',
              'x'.repeat(300),
            ),
            fc.string({ maxLength: 8 }),
          ),
        );
    }
  };

  /** Variables of a field's operation: required ones always, optional ones a quarter of the time. */
  const variablesFor = (
    schema: GraphQLSchema,
    operation: OperationDefinitionNode,
    answers: string,
  ): fc.Arbitrary<Record<string, unknown>> => {
    const values = (operation.variableDefinitions ?? []).map((d) => {
      const value = valueOf(typeFromAST(schema, d.type) as GraphQLInputType, d.variable.name.value, answers);
      const given =
        d.type.kind === Kind.NON_NULL_TYPE
          ? value
          : fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: value });
      return given.map((v) => [d.variable.name.value, v] as const);
    });
    return fc
      .tuple(...values)
      .map((pairs) => Object.fromEntries(pairs.filter(([, v]) => v !== undefined)) as Record<string, unknown>);
  };

  const callerArb = fc.constantFrom<Caller>('owner', 'owner', 'owner', 'published', 'preview', 'anonymous');

  /** Every root query field of every subgraph, as REST runs it: sofa's operation for the field. */
  const routeOperations = () =>
    [...schemas].flatMap(([subgraph, schema]) =>
      Object.keys(schema.getQueryType()!.getFields())
        .filter((field) => !field.startsWith('_'))
        .map((field) => ({
          subgraph,
          field,
          document: operationFor(schema, `Query.${field}`, restApi().shape),
          answers: getNamedType(schema.getQueryType()!.getFields()[field].type).name,
        })),
    );

  it(`answers every route's operation alike (${RUNS} generated requests)`, async () => {
    const operations = routeOperations();
    expect(operations.length).toBeGreaterThan(40);
    const cases = fc.sample(
      fc.nat({ max: operations.length - 1 }).chain((i) => {
        const { subgraph, document, answers } = operations[i];
        const operation = document.definitions[0] as OperationDefinitionNode;
        return fc.record({
          i: fc.constant(i),
          variables: variablesFor(schemas.get(subgraph)!, operation, answers),
          caller: callerArb,
        });
      }),
      { seed: SEED, numRuns: RUNS },
    );
    const differences: string[] = [];
    let answered = 0;
    for (const { i, variables, caller } of cases) {
      const { subgraph, field, document } = operations[i];
      const schema = schemas.get(subgraph)!;
      // The gateway runs only what graphql-js can coerce (`coercible`); the rest goes through the gateway.
      if (!coercible(schema, document.definitions[0] as OperationDefinitionNode, variables)) continue;
      const { expected, actual } = await compare(subgraph, document, variables, caller);
      if (expected.data && Object.values(expected.data).some((v) => v !== null)) answered++;
      if (JSON.stringify(actual) !== JSON.stringify(expected))
        differences.push(
          `${subgraph}.${field} as ${caller} ${JSON.stringify(variables)}\n  graphql-js: ${JSON.stringify(expected)}\n  jit: ${JSON.stringify(actual)}`,
        );
    }
    // The generator must reach real answers, not only refusals.
    expect(answered).toBeGreaterThan(RUNS / 5);
    expect(differences).toEqual([]);
  });

  /** A random selection of an output type's fields (leaves, nested objects, aliases, __typename, fragments). */
  const selectionOf = (type: GraphQLNamedType, depth: number, conditions: boolean): fc.Arbitrary<string> => {
    if (isLeafType(type)) return fc.constant('');
    if (isAbstractType(type) || !isObjectType(type) || depth > 3) return fc.constant('{ __typename }');
    const fields = Object.values((type as GraphQLObjectType).getFields()).filter((f) =>
      f.args.every((a) => !isNonNullType(a.type)),
    );
    const field = fc
      .record({
        f: fc.constantFrom(...fields),
        alias: fc.boolean(),
        skip: conditions ? fc.constantFrom('', '', ' @include(if: $flag)', ' @skip(if: $flag)') : fc.constant(''),
      })
      .chain(({ f, alias, skip }) =>
        selectionOf(getNamedType(f.type), depth + 1, conditions).map(
          (sub) => (at: number) =>
            // Aliases name their field (no two fields share a response key); one field twice is merged.
            `${alias ? `${f.name}${at}: ` : ''}${f.name}${skip} ${sub}`,
        ),
      );
    return fc
      .tuple(
        fc.uniqueArray(field, { minLength: 1, maxLength: 5, selector: (make) => make(0) }),
        fc.constantFrom('', '__typename', `... on ${type.name} { __typename }`),
      )
      .map(([selected, extra]) => `{ ${selected.map((make, at) => make(at)).join(' ')} ${extra} }`);
  };

  it(`answers generated selections on every root field alike (${RUNS} documents)`, async () => {
    const operations = routeOperations();
    const cases = fc.sample(
      fc.nat({ max: operations.length - 1 }).chain((i) => {
        const { subgraph, field } = operations[i];
        const schema = schemas.get(subgraph)!;
        const root = schema.getQueryType()!.getFields()[field];
        const operation = operations[i].document.definitions[0] as OperationDefinitionNode;
        return fc.record({
          i: fc.constant(i),
          selection: fc.boolean().chain((c) => selectionOf(getNamedType(root.type), 1, c)),
          variables: variablesFor(schema, operation, operations[i].answers),
          flag: fc.boolean(),
          caller: callerArb,
        });
      }),
      { seed: SEED + 1, numRuns: RUNS },
    );
    const differences: string[] = [];
    let ran = 0;
    // Operations with `@skip`/`@include` are left to graphql-js (compiled-execution.ts); they must still answer alike.
    let withConditions = 0;
    for (const { i, selection, variables, flag, caller } of cases) {
      const { subgraph, field, document } = operations[i];
      const schema = schemas.get(subgraph)!;
      const operation = document.definitions[0] as OperationDefinitionNode;
      const root = operation.selectionSet.selections[0] as FieldNode;
      const args = (root.arguments ?? []).map(print).join(', ');
      const conditional = selection.includes('$flag');
      const declared = [
        ...(operation.variableDefinitions ?? []).map(print),
        ...(conditional ? ['$flag: Boolean!'] : []),
      ];
      const text = `query Generated${declared.length ? `(${declared.join(', ')})` : ''} { ${field}${args ? `(${args})` : ''} ${selection} }`;
      const generated = parse(text);
      if (validate(schema, generated).length) continue;
      const values = conditional ? { ...variables, flag } : variables;
      if (!coercible(schema, generated.definitions[0] as OperationDefinitionNode, values)) continue;
      if (conditional) withConditions++;
      ran++;
      const { expected, actual } = await compare(subgraph, generated, values, caller);
      if (JSON.stringify(actual) !== JSON.stringify(expected))
        differences.push(
          `${subgraph} as ${caller}: ${text} ${JSON.stringify(values)}\n  graphql-js: ${JSON.stringify(expected)}\n  jit: ${JSON.stringify(actual)}`,
        );
    }
    expect(ran).toBeGreaterThan(RUNS / 2);
    expect(withConditions).toBeLessThan(ran / 2);
    expect(differences).toEqual([]);
  });
});
