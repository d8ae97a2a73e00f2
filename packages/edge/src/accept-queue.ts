// How many connections the kernel completed for a listening server that the process has not accepted yet (Linux).
import { readFile } from 'node:fs/promises';
import type { Server } from 'node:net';

/**
 * The LISTEN rows' `rx_queue` in /proc/net/tcp and tcp6 is the accept queue's length. Closing the listener resets every
 * connection still in it, and a busy process accepts slowly, so a drain waits for it to empty first. Rows are matched by
 * port only (another listener on the same port elsewhere only makes the wait longer); undefined without /proc.
 */
export async function pendingConnections(server: Server): Promise<number | undefined> {
  const address = server.address();
  if (!address || typeof address === 'string') return undefined;
  const port = `:${address.port.toString(16).toUpperCase().padStart(4, '0')}`;
  let pending: number | undefined;
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const table = await readFile(file, 'utf8').catch(() => undefined);
    for (const row of table?.split('\n').slice(1) ?? []) {
      // sl local_address rem_address st tx_queue:rx_queue ...; st 0A is LISTEN.
      const [, local, , state, queues] = row.trim().split(/\s+/);
      if (state !== '0A' || !local?.endsWith(port)) continue;
      pending = (pending ?? 0) + parseInt(queues.split(':')[1], 16);
    }
  }
  return pending;
}
