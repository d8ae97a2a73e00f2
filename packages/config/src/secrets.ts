// The JWT signing secret: JWT_SECRET when set, else generated once and kept under DATA_DIR (D14).
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
