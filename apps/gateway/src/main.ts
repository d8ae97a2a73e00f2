// `npm start`: reads the configuration, starts the service, stops cleanly on SIGINT/SIGTERM.
import 'reflect-metadata';
import { ConfigError, loadConfig } from '@cp/config';
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
  const stop = async () => {
    service.logger.info('shutting down');
    await service.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
