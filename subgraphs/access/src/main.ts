// Standalone access subgraph service (`npm start -w subgraphs/access`).
import { startTracing } from '@cp/tracing';

// Tracing before the service's modules are required: OpenTelemetry patches http, graphql and pg as they load.
const tracing = startTracing('subgraph-access');
const { main } = require('@cp/subgraph-server') as typeof import('@cp/subgraph-server');
const { accessModule, createAuthService } = require('./subgraph') as typeof import('./subgraph');

// Clients' own credentials (forwarded by any federation gateway) are checked with the access subgraph's rules.
main(accessModule, { authenticator: ({ config, secret, signInLimiter }) => createAuthService(config, secret, { signInLimiter }), tracing });
