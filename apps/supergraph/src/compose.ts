// Composition (`npm run compose`): every subgraph's SDL to schema/, the composed schema/supergraph.graphql
// (Federation 2) and its client-facing API schema, schema/api.graphql.
import { composeServices } from '@apollo/composition';
import { loadConfig } from '@cp/config';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { printSchema as printFederationSchema } from '@apollo/federation-internals';
import { parse } from 'graphql';
import { defaultSubgraphUrl, SUBGRAPHS } from './subgraphs';

export const SCHEMA_DIR = resolve(__dirname, '../../../schema');

export interface ComposedSchemas {
  subgraphs: Record<string, string>;
  supergraph: string;
  /** The client-facing schema at /graphql (federation internals removed): what client code generators read. */
  api: string;
}

/** Builds the subgraph schemas from code (no database) and composes them. */
export async function composeFromCode(): Promise<ComposedSchemas> {
  const config = loadConfig({ JWT_SECRET: 'x'.repeat(32) });
  const built = await Promise.all(SUBGRAPHS.map((s) => s.build({ config, secret: new Uint8Array(32) })));
  const result = composeServices(
    built.map((b) => ({ name: b.name, url: defaultSubgraphUrl(b.name as never), typeDefs: parse(b.sdl) })),
  );
  if (result.errors) throw new Error(`Composition failed:\n${result.errors.map((e) => e.message).join('\n')}`);
  // Printed by the composition's own printer: graphql's would see another module copy (ESM/CJS) under vitest.
  const api = `${printFederationSchema(result.schema.toAPISchema())}\n`;
  return { subgraphs: Object.fromEntries(built.map((b) => [b.name, b.sdl])), supergraph: result.supergraphSdl, api };
}

/** Rewrites the committed schema files (`npm run compose`, `content-platform compose`). */
export async function writeComposedSchemas(dir = SCHEMA_DIR): Promise<{ dir: string; subgraphs: string[] }> {
  const { subgraphs, supergraph, api } = await composeFromCode();
  for (const [name, sdl] of Object.entries(subgraphs)) writeFileSync(join(dir, `${name}.graphql`), sdl);
  writeFileSync(join(dir, 'supergraph.graphql'), supergraph);
  writeFileSync(join(dir, 'api.graphql'), api);
  return { dir, subgraphs: Object.keys(subgraphs) };
}
