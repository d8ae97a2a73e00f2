// `npm run compose` (`node apps/gateway/dist/compose.js`): rewrites schema/ from the code; the composition itself
// is @cp/supergraph's, shared with the CLI's `content-platform compose`.
import { writeComposedSchemas } from '@cp/supergraph';

if (require.main === module) {
  writeComposedSchemas()
    .then(({ dir, subgraphs }) => {
      console.log(`wrote ${subgraphs.length} subgraph schemas, supergraph.graphql and api.graphql to ${dir}`);
    })
    .catch((err) => {
      console.error(err);
      process.exit(1);
    });
}
