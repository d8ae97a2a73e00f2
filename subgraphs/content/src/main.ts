// Standalone content subgraph service (`npm start -w subgraphs/content`).
import { main } from '@cp/subgraph-server';
import { buildContentSubgraph, contentDatabase } from './index';

main({ name: 'content', database: contentDatabase, build: (config) => buildContentSubgraph(config) });
