// Standalone content subgraph service (`npm start -w subgraphs/content`); it runs the webhook worker and indexer too.
import { loadConfigOrExit } from '@cp/config';
import { startTracing } from '@cp/tracing';

// The configuration is parsed once, here. Tracing before the service's modules are required: OpenTelemetry patches
// http, graphql and pg as they load.
const config = loadConfigOrExit();
const tracing = startTracing('subgraph-content', config);
const { main } = require('@cp/subgraph-server') as typeof import('@cp/subgraph-server');
const { contentModule } = require('./subgraph') as typeof import('./subgraph');

// Clients' own credentials (forwarded by any federation gateway) are checked by `@cp/auth`, as at our gateway.
main(contentModule, {
  config,
  tracing,
});
