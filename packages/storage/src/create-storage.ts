// Picks the store from the configuration: a bucket when one is configured, else local disk under DATA_DIR.
import { join } from 'node:path';
import { S3Storage, type S3StorageOptions } from './s3-storage';
import { LocalFileStorage, type AssetStorage } from './storage';

/** One store per configuration in a process: the subgraphs' services share its S3 client and connection pool. */
const stores = new Map<string, AssetStorage>();

export function createAssetStorage(dataDir: string, bucket?: S3StorageOptions): AssetStorage {
  const id = JSON.stringify(bucket ?? dataDir);
  let store = stores.get(id);
  if (!store) {
    store = bucket ? new S3Storage(bucket) : new LocalFileStorage(join(dataDir, 'assets'));
    stores.set(id, store);
  }
  return store;
}
