// The gateway process (`npm start` runs it): reads the configuration, starts tracing when configured, then the service; drains and stops on SIGINT/SIGTERM (exit 0).
import 'reflect-metadata';
import { createLogger, loadConfigOrExit } from '@cp/config';
import { startTracing } from '@cp/tracing';

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
}

main().catch((err) => {
  // A refusal to start (another process has the embedded database open) is a message for the operator, not a stack.
  console.error(err?.name === 'DataDirInUseError' ? err.message : err);
  process.exit(1);
});
