// `npm run compose`: prints every subgraph's SDL to schema/ and composes schema/supergraph.graphql (Federation 2).
import { composeServices } from '@apollo/composition';
import { loadConfig } from '@cp/config';
import { createAuthService } from '@cp/subgraph-access';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'graphql';
import { defaultSubgraphUrl, SUBGRAPHS } from './subgraphs';

export const SCHEMA_DIR = resolve(__dirname, '../../../schema');

export interface ComposedSchemas {
  subgraphs: Record<string, string>;
  supergraph: string;
}

/** Builds the subgraph schemas from code (no database) and composes them. */
export async function composeFromCode(): Promise<ComposedSchemas> {
  const config = loadConfig({ JWT_SECRET: 'x'.repeat(32) });
  const auth = createAuthService(config, new Uint8Array(32));
  const built = await Promise.all(SUBGRAPHS.map((s) => s.build({ config, auth })));
  const result = composeServices(
    built.map((b) => ({ name: b.name, url: defaultSubgraphUrl(b.name as never), typeDefs: parse(b.sdl) })),
  );
  if (result.errors) throw new Error(`Composition failed:\n${result.errors.map((e) => e.message).join('\n')}`);
  return { subgraphs: Object.fromEntries(built.map((b) => [b.name, b.sdl])), supergraph: result.supergraphSdl };
}

if (require.main === module) {
  composeFromCode()
    .then(({ subgraphs, supergraph }) => {
      for (const [name, sdl] of Object.entries(subgraphs)) writeFileSync(join(SCHEMA_DIR, `${name}.graphql`), sdl);
      writeFileSync(join(SCHEMA_DIR, 'supergraph.graphql'), supergraph);
      console.log(`wrote ${Object.keys(subgraphs).length} subgraph schemas and supergraph.graphql to ${SCHEMA_DIR}`);
    })
    .catch((err) => {
      console.error(err);
      process.exit(1);
    });
}
