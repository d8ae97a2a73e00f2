// Standalone assets subgraph service (`npm start -w subgraphs/assets`).
import { loadConfigOrExit } from '@cp/config';
import { startTracing } from '@cp/tracing';

// The configuration is parsed once, here. Tracing before the service's modules are required: OpenTelemetry patches
// http, graphql and pg as they load.
const config = loadConfigOrExit();
const tracing = startTracing('subgraph-assets', config);
const { main } = require('@cp/subgraph-server') as typeof import('@cp/subgraph-server');
const { assetsModule } = require('./subgraph') as typeof import('./subgraph');

// Clients' own credentials (forwarded by any federation gateway) are checked by `@cp/auth`, as at our gateway.
main(assetsModule, {
  config,
  tracing,
});
