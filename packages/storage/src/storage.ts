// Where uploaded bytes live: a small interface with a local-filesystem implementation under DATA_DIR (S3-compatible stores plug in here).
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { createHash, randomUUID } from 'node:crypto';
import { dirname, join, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';

export interface StoredObject {
  size: number;
  /** SHA-256 of the bytes, hex. */
  checksum: string;
  /** The first bytes, for type sniffing. */
  head: Buffer;
}

export interface AssetStorage {
  /** Streams `body` into `key`; `maxBytes` aborts with `TooLargeError` and leaves nothing behind. */
  put(key: string, body: Readable, maxBytes: number): Promise<StoredObject>;
  /** Absolute path for `res.sendFile` (local storage); a remote store would return a URL or stream instead. */
  path(key: string): string;
  exists(key: string): Promise<boolean>;
  /** Removes a key, or a folder of keys (an original's image variants) with everything under it. */
  remove(key: string): Promise<void>;
}

export class TooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`The file exceeds ${limit} bytes.`);
  }
}

/** The disk (or the user's quota) is full: the upload was refused and nothing of it was kept. */
export class StorageFullError extends Error {
  constructor(cause: Error) {
    super('No space left to store the file.', { cause });
  }
}

/** A write's failure as the caller should see it: StorageFullError when the disk or the quota is full. */
function storageError(err: unknown): unknown {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ENOSPC' || code === 'EDQUOT' ? new StorageFullError(err as Error) : err;
}

const HEAD_BYTES = 4100;

export class LocalFileStorage implements AssetStorage {
  private readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  path(key: string): string {
    const full = resolve(this.root, key);
    // Keys are built from ids, never from client file names; this guard keeps it that way.
    if (!full.startsWith(this.root + sep)) throw new Error(`storage key escapes the root: ${key}`);
    return full;
  }

  async put(key: string, body: Readable, maxBytes: number): Promise<StoredObject> {
    const target = this.path(key);
    // A full disk can refuse the folder as much as the file (a variant's folder is made with its first variant).
    await mkdir(dirname(target), { recursive: true }).catch((err) => Promise.reject(storageError(err)));
    const temp = join(dirname(target), `.upload-${randomUUID()}`);
    const hash = createHash('sha256');
    let size = 0;
    const heads: Buffer[] = [];
    let headSize = 0;
    const meter = new Transform({
      transform(chunk: Buffer, _enc, done) {
        size += chunk.length;
        if (size > maxBytes) return done(new TooLargeError(maxBytes));
        hash.update(chunk);
        if (headSize < HEAD_BYTES) {
          heads.push(chunk.subarray(0, HEAD_BYTES - headSize));
          headSize += Math.min(chunk.length, HEAD_BYTES - headSize);
        }
        done(null, chunk);
      },
    });
    try {
      await pipeline(body, meter, createWriteStream(temp, { flags: 'wx' }));
      await rename(temp, target);
    } catch (err) {
      await rm(temp, { force: true });
      throw storageError(err);
    }
    return { size, checksum: hash.digest('hex'), head: Buffer.concat(heads) };
  }

  async exists(key: string): Promise<boolean> {
    return stat(this.path(key)).then(
      () => true,
      () => false,
    );
  }

  async remove(key: string): Promise<void> {
    await rm(this.path(key), { force: true, recursive: true });
  }

  read(key: string): Readable {
    return createReadStream(this.path(key));
  }
}

export const storageKey = (asset: { organizationId: string; projectId: string; id: string }) =>
  `${asset.organizationId}/${asset.projectId}/${asset.id}`;
