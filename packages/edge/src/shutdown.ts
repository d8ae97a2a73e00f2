// SIGTERM/SIGINT handling shared by the gateway and the subgraph services: one graceful close, bounded in time.
import type { Logger } from '@cp/config';

/** Drain budget inside the overall timeout: what remains is for closing workers, brokers and the database. */
export function drainDeadline(startedAt: number, timeoutMs: number): number {
  return startedAt + Math.max(timeoutMs - 2000, Math.floor(timeoutMs * 0.6));
}

/**
 * Runs `close(timeoutMs)` once on the first SIGTERM or SIGINT and exits 0 when it finished; a close that throws or
 * outlives `timeoutMs` exits 1 (a second signal does not interrupt the first close).
 */
export function exitGracefullyOnSignals(close: (timeoutMs: number) => Promise<void>, options: { timeoutMs: number; logger: Logger }): void {
  let started = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (started) return;
    started = true;
    options.logger.info({ signal, timeoutMs: options.timeoutMs }, 'shutting down');
    const backstop = setTimeout(() => {
      options.logger.error('shutdown did not finish in time');
      process.exit(1);
    }, options.timeoutMs);
    backstop.unref();
    close(options.timeoutMs).then(
      () => {
        options.logger.info('shut down');
        process.exit(0);
      },
      (err) => {
        options.logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}
