// Standalone assets subgraph service (`npm start -w subgraphs/assets`).
import { startTracing } from '@cp/tracing';

// Tracing before the service's modules are required: OpenTelemetry patches http, graphql and pg as they load.
const tracing = startTracing('subgraph-assets');
const { main } = require('@cp/subgraph-server') as typeof import('@cp/subgraph-server');
const { createAuthService } = require('@cp/subgraph-access') as typeof import('@cp/subgraph-access');
const { assetsModule } = require('./subgraph') as typeof import('./subgraph');

// Clients' own credentials (forwarded by any federation gateway) are checked with the access subgraph's rules.
main(assetsModule, { authenticator: ({ config, secret, signInLimiter }) => createAuthService(config, secret, { signInLimiter }), tracing });
