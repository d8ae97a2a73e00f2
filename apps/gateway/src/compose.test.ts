import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { composeFromCode, SCHEMA_DIR } from './compose';

describe('committed schema', () => {
  it('matches what the code composes (run `npm run compose` after changing a subgraph)', async () => {
    const { subgraphs, supergraph } = await composeFromCode();
    for (const [name, sdl] of Object.entries(subgraphs)) {
      expect(readFileSync(join(SCHEMA_DIR, `${name}.graphql`), 'utf8'), `schema/${name}.graphql drifted`).toBe(sdl);
    }
    expect(readFileSync(join(SCHEMA_DIR, 'supergraph.graphql'), 'utf8'), 'schema/supergraph.graphql drifted').toBe(supergraph);
  });

  it('is a plain Federation 2 supergraph (loadable by Apollo Router)', () => {
    const supergraph = readFileSync(join(SCHEMA_DIR, 'supergraph.graphql'), 'utf8');
    expect(supergraph).toMatch(/@link\(url: "https:\/\/specs\.apollo\.dev\/join\/v0\.\d+"/);
    for (const name of ['ACCESS', 'CONTENT', 'COMPONENTS', 'ASSETS']) expect(supergraph).toMatch(new RegExp(`${name} @join__graph`));
  });
});
