// The asset service over the assets directory of `DATA_DIR`: one way to build it, for the resolver and the HTTP routes.
import type { Config } from '@cp/config';
import { LocalFileStorage } from '@cp/storage';
import { join } from 'node:path';
import { AssetService } from './asset.service';

export function createAssetService(config: Pick<Config, 'database' | 'uploads'>): AssetService {
  return new AssetService(new LocalFileStorage(join(config.database.dataDir, 'assets')), config.uploads.maxBytes);
}
