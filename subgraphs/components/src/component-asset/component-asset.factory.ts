// The component asset service over the configured file store: one way to build it, for the resolver and the HTTP
// routes.
import type { Config } from '@cp/config';
import { createAssetStorage } from '@cp/storage';
import { ComponentAssetService } from './component-asset.service';

export function createComponentAssetService(
  config: Pick<Config, 'database' | 'storage' | 'uploads'>,
): ComponentAssetService {
  return new ComponentAssetService(
    createAssetStorage(config.database.dataDir, config.storage),
    config.uploads.maxBytes,
  );
}
