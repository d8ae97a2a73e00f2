// Standalone components subgraph service (`npm start -w subgraphs/components`).
import { main } from '@cp/subgraph-server';
import { createAuthService } from '@cp/subgraph-access';
import { componentsModule } from './subgraph';

// Clients' own credentials (forwarded by any federation gateway) are checked with the access subgraph's rules.
main(componentsModule, { authenticator: ({ config, secret }) => createAuthService(config, secret) });
