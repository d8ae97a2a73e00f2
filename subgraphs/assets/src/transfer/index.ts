// Builds the assets subgraph's project transfer on the same file store as asset uploads.
import type { Config } from '@cp/config';
import { createAssetStorage } from '@cp/storage';
import { AssetsTransferService } from './assets-transfer.service';

export function createAssetsTransfer(config: Pick<Config, 'database' | 'storage'>): AssetsTransferService {
  return new AssetsTransferService(createAssetStorage(config.database.dataDir, config.storage));
}
