// GET /health (D10): `ok`, or `degraded` with 503 when the database does not answer (200 when only the broker is down).
import type { Database, EventBroker } from '@cp/db';
import type { Request, Response } from 'express';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const SERVICE_VERSION: string = JSON.parse(readFileSync(join(__dirname, '../package.json'), 'utf8')).version;

/**
 * Exactly D10's members; `/ready` says which dependency is down. A broker outage is `degraded` at 200: answers stay
 * correct (docs/operating/README.md, Faults).
 */
export function healthHandler(db: Database, broker: Pick<EventBroker, 'connected' | 'kind'>) {
  return async (_req: Request, res: Response) => {
    const database = await db.ping();
    res.status(database ? 200 : 503).json({
      status: database && broker.connected ? 'ok' : 'degraded',
      version: SERVICE_VERSION,
      timestamp: new Date().toISOString(),
    });
  };
}
