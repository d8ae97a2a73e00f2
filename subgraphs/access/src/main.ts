// Standalone access subgraph service (`npm start -w subgraphs/access`).
import { loadJwtSecret } from '@cp/config';
import { main } from '@cp/subgraph-server';
import { accessDatabase, buildAccessSubgraph, createAuthService } from './index';

main({ name: 'access', database: accessDatabase, build: (config) => buildAccessSubgraph(createAuthService(config, loadJwtSecret(config))) });
