// Standalone assets subgraph service (`npm start -w subgraphs/assets`).
import { main } from '@cp/subgraph-server';
import { createAuthService } from '@cp/subgraph-access';
import { assetsModule } from './subgraph';

// Clients' own credentials (forwarded by any federation gateway) are checked with the access subgraph's rules.
main(assetsModule, { authenticator: ({ config, secret }) => createAuthService(config, secret) });
