// Closes a pg connection's socket at once, whatever it waits for (pg's own `end()` waits for the server's goodbye).
import type pg from 'pg';

/**
 * pg fails the connection's active and queued statements with "Connection terminated unexpectedly" (503 at the edge)
 * and stops taking new ones. `end()` would not do for a server that answers nothing: on an idle connection it sends a
 * goodbye and waits for the socket to close, and statements sent meanwhile wait with it. The socket is pg's internal
 * `connection.stream` (what `end()` itself destroys when a statement is active).
 */
export function destroySocket(client: pg.Client): void {
  (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
}
