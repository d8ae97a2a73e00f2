// The component asset service over the assets directory of `DATA_DIR`: one way to build it, for the resolver and the
// HTTP routes.
import type { Config } from '@cp/config';
import { LocalFileStorage } from '@cp/storage';
import { join } from 'node:path';
import { ComponentAssetService } from './component-asset.service';

export function createComponentAssetService(config: Pick<Config, 'database' | 'uploads'>): ComponentAssetService {
  return new ComponentAssetService(
    new LocalFileStorage(join(config.database.dataDir, 'assets')),
    config.uploads.maxBytes,
  );
}
