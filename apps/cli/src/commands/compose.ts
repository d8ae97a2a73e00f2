// `content-platform compose`: rewrites schema/<subgraph>.graphql and schema/supergraph.graphql from code (@cp/supergraph).
import { writeComposedSchemas } from '@cp/supergraph';

export async function compose(progress: { note(message: string): void }) {
  const written = await writeComposedSchemas();
  progress.note(`wrote ${written.subgraphs.length} subgraph schemas and supergraph.graphql to ${written.dir}`);
  return written;
}
