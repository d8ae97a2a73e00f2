import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, type DefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { composeFromCode, SCHEMA_DIR } from '@cp/supergraph';

describe('committed schema', () => {
  it('matches what the code composes (run `npm run compose` after changing a subgraph)', async () => {
    const { subgraphs, supergraph, api } = await composeFromCode();
    for (const [name, sdl] of Object.entries(subgraphs)) {
      expect(readFileSync(join(SCHEMA_DIR, `${name}.graphql`), 'utf8'), `schema/${name}.graphql drifted`).toBe(sdl);
    }
    expect(readFileSync(join(SCHEMA_DIR, 'supergraph.graphql'), 'utf8'), 'schema/supergraph.graphql drifted').toBe(
      supergraph,
    );
    expect(readFileSync(join(SCHEMA_DIR, 'api.graphql'), 'utf8'), 'schema/api.graphql drifted').toBe(api);
  });

  it('api.graphql is the client schema: no federation internals', () => {
    const api = readFileSync(join(SCHEMA_DIR, 'api.graphql'), 'utf8');
    expect(api).toMatch(/^type Query \{/m);
    expect(api).not.toMatch(/join__|link__|@join|_Entity|_service/);
  });

  it('is a plain Federation 2 supergraph (loadable by Apollo Router)', () => {
    const supergraph = readFileSync(join(SCHEMA_DIR, 'supergraph.graphql'), 'utf8');
    expect(supergraph).toMatch(/@link\(url: "https:\/\/specs\.apollo\.dev\/join\/v0\.\d+"/);
    for (const name of ['ACCESS', 'CONTENT', 'COMPONENTS', 'ASSETS'])
      expect(supergraph).toMatch(new RegExp(`${name} @join__graph`));
  });

  it('documents every type, field, argument and enum value (SDL descriptions are the API docs)', async () => {
    const { subgraphs } = await composeFromCode();
    const missing: string[] = [];
    for (const [name, sdl] of Object.entries(subgraphs)) {
      for (const def of parse(sdl.replace(/^extend schema.*$/m, '')).definitions as (DefinitionNode &
        Record<string, any>)[]) {
        if (!def.name) continue;
        const where = `${name}: ${def.name.value}`;
        // type-graphql can't describe the root types themselves; their fields are checked like any other.
        if (!def.description && !['Query', 'Mutation', 'Subscription'].includes(def.name.value)) missing.push(where);
        for (const field of def.fields ?? []) {
          if (!field.description) missing.push(`${where}.${field.name.value}`);
          for (const arg of field.arguments ?? [])
            if (!arg.description) missing.push(`${where}.${field.name.value}(${arg.name.value})`);
        }
        for (const value of def.values ?? []) if (!value.description) missing.push(`${where}.${value.name.value}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
