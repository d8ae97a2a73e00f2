// GET /health: `ok`, or `degraded` with 503 when the database does not answer (200 when only the broker is down or
// the database refuses writes for lack of space).
import type { Database, EventBroker } from '@cp/db';
import type { Request, Response } from 'express';

/**
 * Exactly `{status, version, timestamp}`; `/ready` says which dependency is down. A broker outage is `degraded` at
 * 200: answers stay correct (docs/operating/README.md, Faults).
 */
export function healthHandler(
  db: Pick<Database, 'ping' | 'exhausted'>,
  broker: Pick<EventBroker, 'connected'>,
  version: string,
) {
  return async (_req: Request, res: Response) => {
    const database = await db.ping();
    res.status(database ? 200 : 503).json({
      status: database && broker.connected && !db.exhausted() ? 'ok' : 'degraded',
      version,
      timestamp: new Date().toISOString(),
    });
  };
}
