// Builds the assets subgraph's project transfer on the same file store as asset uploads.
import type { Config } from '@cp/config';
import { LocalFileStorage } from '@cp/storage';
import { join } from 'node:path';
import { AssetsTransferService } from './assets-transfer.service';

export function createAssetsTransfer(config: Pick<Config, 'database'>): AssetsTransferService {
  return new AssetsTransferService(new LocalFileStorage(join(config.database.dataDir, 'assets')));
}
