// Standalone content subgraph service (`npm start -w subgraphs/content`); it runs the webhook worker and indexer too.
import { main } from '@cp/subgraph-server';
import { createAuthService } from '@cp/subgraph-access';
import { contentModule } from './subgraph';

// Clients' own credentials (forwarded by any federation gateway) are checked with the access subgraph's rules.
main(contentModule, { authenticator: ({ config, secret }) => createAuthService(config, secret) });
