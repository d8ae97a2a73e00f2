// Standalone components subgraph service (`npm start -w subgraphs/components`).
import { loadConfigOrExit } from '@cp/config';
import { startTracing } from '@cp/tracing';

// The configuration is parsed once, here. Tracing before the service's modules are required: OpenTelemetry patches
// http, graphql and pg as they load.
const config = loadConfigOrExit();
const tracing = startTracing('subgraph-components', config);
const { main } = require('@cp/subgraph-server') as typeof import('@cp/subgraph-server');
const { createAuthService } = require('@cp/subgraph-access') as typeof import('@cp/subgraph-access');
const { componentsModule } = require('./subgraph') as typeof import('./subgraph');

// Clients' own credentials (forwarded by any federation gateway) are checked with the access subgraph's rules.
main(componentsModule, {
  config,
  authenticator: ({ secret, signInLimiter }) => createAuthService(config, secret, { signInLimiter }),
  tracing,
});
