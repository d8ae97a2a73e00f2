// GET /health (D10): `ok`, or `degraded` with 503 when the database does not answer (200 when only the broker is down).
import type { Database, EventBroker } from '@cp/db';
import type { Request, Response } from 'express';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const SERVICE_VERSION: string = JSON.parse(readFileSync(join(__dirname, '../package.json'), 'utf8')).version;

/** `checks` name what is down: the database (503, D10) or the event broker (200: answers stay correct, see README). */
export function healthHandler(db: Database, broker: Pick<EventBroker, 'connected' | 'kind'>) {
  return async (_req: Request, res: Response) => {
    const database = await db.ping();
    const checks = { database: database ? 'up' : 'down', broker: broker.connected ? 'up' : 'down' };
    res.status(database ? 200 : 503).json({
      status: database && broker.connected ? 'ok' : 'degraded',
      version: SERVICE_VERSION,
      timestamp: new Date().toISOString(),
      checks,
    });
  };
}
