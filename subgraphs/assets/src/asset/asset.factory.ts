// The asset service over the configured file store: one way to build it, for the resolver and the HTTP routes.
import type { Config } from '@cp/config';
import { createAssetStorage } from '@cp/storage';
import { AssetService } from './asset.service';

export function createAssetService(config: Pick<Config, 'database' | 'storage' | 'uploads'>): AssetService {
  return new AssetService(createAssetStorage(config.database.dataDir, config.storage), config.uploads.maxBytes);
}
