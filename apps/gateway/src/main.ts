// `npm start`: reads the configuration, starts the service, drains and stops on SIGINT/SIGTERM (exit 0).
import 'reflect-metadata';
import { ConfigError, loadConfig } from '@cp/config';
import { exitGracefullyOnSignals } from '@cp/edge';
import { startService } from './app';

async function main() {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  const service = await startService(config);
  exitGracefullyOnSignals((timeoutMs) => service.close(timeoutMs), { timeoutMs: config.shutdown.timeoutMs, logger: service.logger });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
