// The gateway process (`npm start` runs it): reads the configuration, starts tracing when configured, then the service; drains and stops on SIGINT/SIGTERM (exit 0).
import 'reflect-metadata';
import { setFlagsFromString } from 'node:v8';
import { createLogger, loadConfigOrExit } from '@cp/config';
import { startTracing } from '@cp/tracing';

/**
 * V8's young generation doubles whenever a scavenge finds many survivors, and a start-up (modules, schemas, the query
 * planner, migrations) finds many: it left the young generation at its 16 MB per half for good, about 30 MB of idle
 * RSS. So it does not grow while the process starts; once it listens, it grows again as the load asks (V8 reads the
 * factor each time it grows), so throughput under load is what it was.
 */
const YOUNG_GENERATION_GROWTH = 2;
setFlagsFromString('--semi-space-growth-factor=1');

async function main() {
  const config = loadConfigOrExit();
  // Tracing before the service's modules are required: OpenTelemetry patches http, graphql and pg as they load.
  const tracing = startTracing('gateway', config);
  const { exitGracefullyOnSignals } = require('@cp/edge') as typeof import('@cp/edge');
  const { startService } = require('./app') as typeof import('./app');
  const logger = createLogger(config);
  const starting = startService(config, logger);
  // Signals are handled from before the service says it listens: a SIGTERM right after (or during start) is graceful.
  exitGracefullyOnSignals(starting, { ...config.shutdown, logger, afterClose: () => tracing.shutdown() });
  await starting;
  setFlagsFromString(`--semi-space-growth-factor=${YOUNG_GENERATION_GROWTH}`);
}

main().catch((err) => {
  // A refusal to start (another process has the embedded database open) is a message for the operator, not a stack.
  console.error(err?.name === 'DataDirInUseError' ? err.message : err);
  process.exit(1);
});
