// Standalone components subgraph service (`npm start -w subgraphs/components`).
import { loadConfigOrExit } from '@cp/config';
import { startTracing } from '@cp/tracing';

// The configuration is parsed once, here. Tracing before the service's modules are required: OpenTelemetry patches
// http, graphql and pg as they load.
const config = loadConfigOrExit();
const tracing = startTracing('subgraph-components', config);
const { main } = require('@cp/subgraph-server') as typeof import('@cp/subgraph-server');
const { componentsModule } = require('./subgraph') as typeof import('./subgraph');

// Clients' own credentials (forwarded by any federation gateway) are checked by `@cp/auth`, as at our gateway.
main(componentsModule, {
  config,
  tracing,
});
