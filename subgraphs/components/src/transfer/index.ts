// Builds the components subgraph's project transfer on the same file store as component asset uploads.
import type { Config } from '@cp/config';
import { LocalFileStorage } from '@cp/storage';
import { join } from 'node:path';
import { ComponentsTransferService } from './components-transfer.service';

export function createComponentsTransfer(config: Pick<Config, 'database'>): ComponentsTransferService {
  return new ComponentsTransferService(new LocalFileStorage(join(config.database.dataDir, 'assets')));
}
