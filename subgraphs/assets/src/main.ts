// Standalone assets subgraph service (`npm start -w subgraphs/assets`).
import { main } from '@cp/subgraph-server';
import { assetsDatabase, buildAssetsSubgraph } from './index';

main({ name: 'assets', database: assetsDatabase, build: (config) => buildAssetsSubgraph(config) });
