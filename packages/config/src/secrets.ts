// The signing secrets: JWT_SECRET (users' tokens; generated under DATA_DIR when unset) and SUBGRAPH_SECRET.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from './index';

export function loadJwtSecret(config: Pick<Config, 'auth' | 'database'>): Uint8Array {
  if (config.auth.jwtSecret) return new TextEncoder().encode(config.auth.jwtSecret);
  const file = join(config.database.dataDir, 'jwt-secret');
  if (!existsSync(file)) {
    mkdirSync(config.database.dataDir, { recursive: true });
    // `wx`: two processes sharing DATA_DIR never overwrite each other's secret.
    try {
      writeFileSync(file, randomBytes(48).toString('base64url'), { mode: 0o600, flag: 'wx' });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
  return new TextEncoder().encode(readFileSync(file, 'utf8').trim());
}

/**
 * The key of the gateway -> remote subgraph principal header. Required wherever that header crosses the network (a
 * subgraph service, a gateway with SUBGRAPH_URLS); unlike JWT_SECRET it is never generated: both sides must share it.
 */
export function loadSubgraphSecret(config: Pick<Config, 'auth'>, role: string): Uint8Array {
  if (!config.auth.subgraphSecret)
    throw new Error(
      `SUBGRAPH_SECRET (at least 32 characters, shared by the gateway and the subgraph services) is required ${role}.`,
    );
  return new TextEncoder().encode(config.auth.subgraphSecret);
}
