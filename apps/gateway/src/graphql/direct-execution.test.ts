import { loadConfig, type SubgraphName } from '@cp/config';
import { parse, type GraphQLSchema } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApollo } from './apollo';
import { DirectExecution, queryHashOf } from './direct-execution';
import { createGateway, readSupergraph } from './gateway';
import { SUBGRAPHS } from '@cp/supergraph';

// The decision only: which operations the gateway's own plans prove local. No database, so resolvers fail; the plan is
// made before execution. Answers are compared with the gateway's in test/remote-subgraphs.test.ts.
describe('DirectExecution', () => {
  const local: Partial<Record<SubgraphName, GraphQLSchema>> = {};
  const settled: string[] = [];
  let direct: DirectExecution;
  let apollo: ReturnType<typeof createApollo>;
  let apiSchema: GraphQLSchema;
  beforeAll(async () => {
    const config = loadConfig({ JWT_SECRET: 'x'.repeat(32) });
    for (const s of SUBGRAPHS) local[s.name] = (await s.build({ config, secret: new Uint8Array(32) })).schema;
    direct = new DirectExecution(local, undefined, async () => void settled.push('settled'));
    const gateway = createGateway({
      supergraphSdl: readSupergraph(),
      local,
      remote: {},
      didResolveQueryPlan: direct.didResolveQueryPlan,
    });
    gateway.onSchemaLoadOrUpdate((loaded) => (apiSchema = loaded.apiSchema));
    apollo = createApollo(direct.wrap(gateway));
    await apollo.start();
  });
  afterAll(() => apollo?.stop());

  const tag = 'deleteTag(organizationId: "default", projectId: "default", id: "x") { id }';
  const planned = async (query: string, operationName?: string) => {
    await apollo.executeOperation({ query, operationName }, { contextValue: {} as never });
    return direct.schemaFor(queryHashOf(query), operationName);
  };

  it('runs an operation one in-process subgraph answers alone on that subgraph, once the gateway has planned it', async () => {
    const list =
      'query L { contents(organizationId: "default", projectId: "default") { data { id name createdBy { id } } } }';
    expect(direct.schemaFor(queryHashOf(list), 'L')).toBeUndefined();
    expect(await planned(list, 'L')).toBe(local.content);
    expect(await planned('{ organizations { data { id name } } }')).toBe(local.access);
    expect(await planned(`mutation { ${tag} }`)).toBe(local.content);
  });

  it('leaves the gateway what needs another subgraph and introspection; plans are per operation', async () => {
    expect(
      await planned(
        '{ contentType(organizationId: "default", projectId: "default", id: "x") { name createdBy { email } } }',
      ),
    ).toBeUndefined();
    expect(
      await planned(
        '{ tags(organizationId: "default", projectId: "default") { data { id } } __schema { queryType { name } } }',
      ),
    ).toBeUndefined();
    // Root fields of two subgraphs: a sequence of fetches.
    const role = 'deleteRole(organizationId: "default", id: "x") { id }';
    expect(await planned(`mutation { ${role} ${tag} }`)).toBeUndefined();
    // The whole document is validated against the subgraph: another operation reading elsewhere keeps it all there.
    const two =
      'query A { tags(organizationId: "default", projectId: "default") { data { id } } } query B { users(organizationId: "default") { data { email } } }';
    expect(await planned(two, 'A')).toBeUndefined();
    const same =
      'query A { tags(organizationId: "default", projectId: "default") { data { id } } } query B { folders(organizationId: "default", projectId: "default") { data { id } } }';
    expect(await planned(same, 'A')).toBe(local.content);
    expect(direct.schemaFor(queryHashOf(same), 'B')).toBeUndefined();
  });

  it('settles every mutation before it answers, planned or direct, and no query', async () => {
    const mutation =
      'mutation { createTag(organizationId: "default", projectId: "default", input: { name: "t" }) { id } }';
    const query = '{ tags(organizationId: "default", projectId: "default") { data { id } } }';
    for (const source of [mutation, query]) {
      settled.length = 0;
      await planned(source); // planned by the gateway, then run on the subgraph
      await apollo.executeOperation({ query: source }, { contextValue: {} as never });
      expect(direct.schemaFor(queryHashOf(source), undefined)).toBe(local.content);
      expect(settled).toEqual(source === mutation ? ['settled', 'settled'] : []);
    }
  });

  it("runs a REST route's operation through Apollo until the plan proves it local, then directly; settles each write", async () => {
    const execute = direct.restExecutor(apiSchema, apollo);
    const text =
      'mutation M { createTag(organizationId: "default", projectId: "default", input: { name: "r" }) { id } }';
    const operation = { document: parse(text), text, name: 'M' };
    const executeOperation = apollo.executeOperation.bind(apollo);
    let throughApollo = 0;
    apollo.executeOperation = ((...args: Parameters<typeof executeOperation>) => (
      throughApollo++,
      executeOperation(...args)
    )) as typeof apollo.executeOperation;
    try {
      settled.length = 0;
      await execute(operation, {}, {} as never);
      expect([throughApollo, settled.length]).toEqual([1, 1]);
      expect(direct.schemaFor(queryHashOf(text), 'M')).toBe(local.content);
      await execute(operation, {}, {} as never);
      expect([throughApollo, settled.length]).toEqual([1, 2]);
    } finally {
      apollo.executeOperation = executeOperation;
    }
  });

  it('keeps remote subgraphs on the gateway', async () => {
    const { content: _remote, ...others } = local;
    const remote = new DirectExecution(others);
    const gateway = createGateway({
      supergraphSdl: readSupergraph(),
      local: others,
      remote: { content: 'http://127.0.0.1:9/graphql' },
      subgraphSecret: new Uint8Array(32),
      didResolveQueryPlan: remote.didResolveQueryPlan,
    });
    const server = createApollo(remote.wrap(gateway));
    await server.start();
    const query = '{ tags(organizationId: "default", projectId: "default") { data { id } } }';
    await server.executeOperation({ query }, { contextValue: {} as never });
    expect(remote.schemaFor(queryHashOf(query), undefined)).toBeUndefined();
    await server.stop();
  });
});
