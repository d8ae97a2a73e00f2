// Builds the content subgraph's project transfer from the configuration (the webhook secret box needs the service key).
import { loadJwtSecret, type Config } from '@cp/config';
import { SecretBox } from '../webhook/secret-box';
import { ContentTransferService } from './content-transfer.service';

export function createContentTransfer(config: Pick<Config, 'auth' | 'database'>): ContentTransferService {
  return new ContentTransferService(new SecretBox(loadJwtSecret(config)));
}
