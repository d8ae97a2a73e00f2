import { loadConfig, type SubgraphName } from '@cp/config';
import { parse, type GraphQLSchema } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { DirectReads } from './direct-reads';
import { readSupergraph } from './gateway';
import { SUBGRAPHS } from './subgraphs';

describe('DirectReads', () => {
  const local: Partial<Record<SubgraphName, GraphQLSchema>> = {};
  beforeAll(async () => {
    const config = loadConfig({ JWT_SECRET: 'x'.repeat(32) });
    for (const s of SUBGRAPHS) local[s.name] = (await s.build({ config, secret: new Uint8Array(32) })).schema;
  });
  const list = parse('query L($limit: Int) { contents(organizationId: "default", projectId: "default", limit: $limit) { data { id name createdBy { id } } } }');

  it('runs a read one in-process subgraph answers alone on that subgraph', () => {
    expect(new DirectReads(readSupergraph(), local).schemaFor(list)).toBe(local.content);
  });

  it('leaves reads that need another subgraph, or a remote one, to the gateway', () => {
    const crossing = parse('{ contentType(organizationId: "default", projectId: "default", id: "x") { name createdBy { email } } }');
    expect(new DirectReads(readSupergraph(), local).schemaFor(crossing)).toBeUndefined();
    const { content: _remote, ...others } = local;
    expect(new DirectReads(readSupergraph(), others).schemaFor(list)).toBeUndefined();
  });
});
