// SIGTERM/SIGINT handling shared by the gateway and the subgraph services: a grace window, then one bounded graceful close.
import type { Logger } from '@cp/config';

/** Drain budget inside the overall timeout: what remains is for closing workers, brokers and the database. */
export function drainDeadline(startedAt: number, timeoutMs: number): number {
  return startedAt + Math.max(timeoutMs - 2000, Math.floor(timeoutMs * 0.6));
}

/** What a process hands to `exitGracefullyOnSignals`. */
export interface GracefulService {
  /** Starts the grace window: `/ready` 503 and `Connection: close` on answers, while still accepting (`HttpDrain.retire`). */
  retire(): void;
  /** Stops accepting, finishes in-flight work and stops everything; `timeoutMs` bounds it. */
  close(timeoutMs: number): Promise<void>;
}

export interface ShutdownOptions {
  /** Bounds `close`, counted from the end of the grace window; an overrun exits 1. */
  timeoutMs: number;
  /** SIGTERM's grace window: load balancers see `/ready` 503 and stop sending before the listener closes. */
  graceMs: number;
  logger: Logger;
  /** Runs after `close` finished, inside the same bound: e.g. exporting the last trace spans. */
  afterClose?: () => Promise<void>;
}

/**
 * `service` may still be starting: handlers are installed at once, so a signal during the start (or right after the
 * process said it listens) is graceful too; a service that failed to start has nothing to retire.
 *
 * On the first SIGTERM or SIGINT (or, under npm, when npm's shell died): `retire()`, wait the grace window (SIGTERM
 * only: Ctrl-C is a person, not a load balancer; a second signal ends the window early), then `close(timeoutMs)` once;
 * exits 0 when it finished, 1 when it threw or outlived `timeoutMs`. Signals during the close change nothing.
 */
export function exitGracefullyOnSignals(
  service: GracefulService | Promise<GracefulService>,
  options: ShutdownOptions,
): void {
  const { timeoutMs, logger } = options;
  // The caller reports a failed start; this handle must not turn it into an unhandled rejection as well.
  Promise.resolve(service).catch(() => undefined);
  let endGrace: (() => void) | undefined;
  let started = false;
  const onSignal = async (signal: NodeJS.Signals) => {
    if (started) return endGrace?.();
    started = true;
    const graceMs = signal === 'SIGTERM' ? options.graceMs : 0;
    logger.info({ signal, graceMs, timeoutMs }, 'shutting down');
    void Promise.resolve(service).then(
      (running) => running.retire(),
      () => undefined,
    );
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, graceMs);
      endGrace = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    endGrace = undefined;
    const backstop = setTimeout(() => {
      logger.error('shutdown did not finish in time');
      process.exit(1);
    }, timeoutMs);
    backstop.unref();
    try {
      await (await service).close(timeoutMs);
      await options.afterClose?.();
    } catch (err) {
      logger.error({ err }, 'shutdown failed');
      process.exit(1);
    }
    logger.info('shut down');
    process.exit(0);
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void onSignal(signal));
  if (process.env.npm_lifecycle_event) onParentExit(() => void onSignal('SIGTERM'));
}

/**
 * `npm start` runs the script as `sh -c "node …"`; npm forwards a SIGTERM to that shell, which dies without passing
 * it on, and this process would serve on as an orphan. So under npm a parent that went away counts as SIGTERM.
 */
function onParentExit(gone: () => void): void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    gone();
  }, 200);
  timer.unref();
}
