// Logs a client connection's outages once per change of state (down, then up again), not once per failed attempt.
import type { Logger } from 'pino';

export interface ConnectionState {
  /** False from the first failure until the connection is back. */
  readonly up: boolean;
  /** The connection works (again): logs `<name> connection restored` if it was down. */
  markUp(): void;
  /** The connection failed: logs `<name> connection lost` once, however many attempts fail after it. */
  markDown(err?: unknown): void;
}

export function connectionState(logger: Logger | undefined, name: string, initiallyUp = true): ConnectionState {
  let up = initiallyUp;
  return {
    get up() {
      return up;
    },
    markUp() {
      if (up) return;
      up = true;
      logger?.info({ connection: name }, `${name} connection restored`);
    },
    markDown(err) {
      if (!up) return;
      up = false;
      const message = err instanceof Error ? err.message : err === undefined ? undefined : String(err);
      logger?.warn({ connection: name, reason: message }, `${name} connection lost; reconnecting`);
    },
  };
}
