// Standalone access subgraph service (`npm start -w subgraphs/access`).
import { main } from '@cp/subgraph-server';
import { accessModule, createAuthService } from './subgraph';

// Clients' own credentials (forwarded by any federation gateway) are checked with the access subgraph's rules.
main(accessModule, { authenticator: ({ config, secret }) => createAuthService(config, secret) });
