// Builds the content subgraph's project transfer (the webhook secret box needs the service key).
import { SecretBox } from '../webhook/secret-box';
import { ContentTransferService } from './content-transfer.service';

export function createContentTransfer(secret: Uint8Array): ContentTransferService {
  return new ContentTransferService(new SecretBox(secret));
}
