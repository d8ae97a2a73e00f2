// Standalone components subgraph service (`npm start -w subgraphs/components`).
import { main } from '@cp/subgraph-server';
import { buildComponentsSubgraph, componentsDatabase } from './index';

main({ name: 'components', database: componentsDatabase, build: (config) => buildComponentsSubgraph(config) });
