// Builds the components subgraph's project transfer on the same file store as component asset uploads.
import type { Config } from '@cp/config';
import { createAssetStorage } from '@cp/storage';
import { ComponentsTransferService } from './components-transfer.service';

export function createComponentsTransfer(config: Pick<Config, 'database' | 'storage'>): ComponentsTransferService {
  return new ComponentsTransferService(createAssetStorage(config.database.dataDir, config.storage));
}
