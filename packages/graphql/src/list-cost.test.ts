// The list-aware cost counts a page size wherever the API takes it: a `limit` argument or the `limit` of an `input`.
import fc from 'fast-check';
import { buildSchema, parse, type FragmentDefinitionNode, type OperationDefinitionNode } from 'graphql';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listAwareCost } from './list-cost';

const schema = buildSchema(readFileSync(join(__dirname, '../../../schema/api.graphql'), 'utf8'));
const runs = { seed: Number(process.env.FC_SEED ?? 20261126), numRuns: Number(process.env.FC_RUNS ?? 100) };
const SCOPE = 'organizationId: "o", projectId: "p"';

function cost(text: string, variables?: Record<string, unknown>): number {
  const document = parse(text);
  const operation = document.definitions.find((d) => d.kind === 'OperationDefinition') as OperationDefinitionNode;
  const fragments = Object.fromEntries(
    document.definitions
      .filter((d): d is FragmentDefinitionNode => d.kind === 'FragmentDefinition')
      .map((d) => [d.name.value, d]),
  );
  return listAwareCost(schema, operation, fragments, variables);
}

describe('listAwareCost', () => {
  it('counts a search’s `input.limit` (literal, variable member or whole variable) as a list’s `limit`', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100 }), (limit) => {
        const selection = '{ data { id name status } }';
        const list = cost(`{ contents(${SCOPE}, limit: ${limit}) ${selection} }`);
        expect(cost(`{ searchContent(${SCOPE}, input: { limit: ${limit} }) ${selection} }`)).toBe(list);
        expect(
          cost(`query($n: Int) { searchContent(${SCOPE}, input: { limit: $n }) ${selection} }`, { n: limit }),
        ).toBe(list);
        expect(
          cost(`query($i: SearchContentInput) { searchContent(${SCOPE}, input: $i) ${selection} }`, { i: { limit } }),
        ).toBe(list);
        expect(cost(`{ executeSavedSearch(${SCOPE}, id: "s", input: { limit: ${limit} }) ${selection} }`)).toBe(list);
      }),
      runs,
    );
    // Without a size, the default 20, as for a list without `limit`.
    expect(cost(`{ searchContent(${SCOPE}) { data { id } } }`)).toBe(cost(`{ contents(${SCOPE}) { data { id } } }`));
  });

  it('multiplies a page’s items by its size, not its single members (`pagination`, `includes`)', () => {
    const items = cost(`{ contents(${SCOPE}, limit: 100) { data { id name } } }`);
    expect(items).toBe(1 + 100 + 200);
    const withIncludes = cost(
      `{ contents(${SCOPE}, limit: 100, include: 2) { data { id name } pagination { lastKey } includes { content { id name } assets { id } } } }`,
    );
    expect(withIncludes).toBe(items + 2 + 1 + 3 + 2);
    // A sized list under the items multiplies again.
    expect(cost(`{ contents(${SCOPE}, limit: 10) { data { referencedBy(limit: 10) { data { id } } } } }`)).toBe(
      1 + 10 + 10 + 100 + 100,
    );
  });
});
