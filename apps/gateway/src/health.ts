// GET /health (D10): `ok`, or `degraded` with 503 when the database does not answer.
import type { Database } from '@cp/db';
import type { Request, Response } from 'express';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const SERVICE_VERSION: string = JSON.parse(readFileSync(join(__dirname, '../package.json'), 'utf8')).version;

export function healthHandler(db: Database) {
  return async (_req: Request, res: Response) => {
    const ok = await db.ping();
    res
      .status(ok ? 200 : 503)
      .json({ status: ok ? 'ok' : 'degraded', version: SERVICE_VERSION, timestamp: new Date().toISOString() });
  };
}
