// Where uploaded bytes live: the interface every store implements, and the local-filesystem store under DATA_DIR.
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { dirname, join, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { meter, type StoredObject } from './meter';

export { TooLargeError, type StoredObject } from './meter';

/** Inclusive byte offsets, as in an HTTP `Range`. */
export interface ByteRange {
  start: number;
  end: number;
}

export interface AssetStorage {
  /**
   * Streams `body` into `key`, measuring it on the way; past `maxBytes` it fails with `TooLargeError`. A failed put
   * (too large, a broken body, a full disk, an unreachable store) leaves nothing under `key`.
   */
  put(key: string, body: Readable, maxBytes: number): Promise<StoredObject>;
  /** The stored size of `key` (metadata only, no bytes read), or null when there is no such key. */
  stat(key: string): Promise<{ size: number } | null>;
  /** Streams the bytes of `key`, or of one range of them; null when there is no such key. `size` is the whole object's. */
  open(key: string, range?: ByteRange): Promise<{ size: number; body: Readable } | null>;
  exists(key: string): Promise<boolean>;
  /** Removes a key, or a folder of keys (an original's image variants) with everything under it. */
  remove(key: string): Promise<void>;
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

export class LocalFileStorage implements AssetStorage {
  private readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  private path(key: string): string {
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
    const measured = meter(maxBytes);
    try {
      await pipeline(body, measured.stream, createWriteStream(temp, { flags: 'wx' }));
      await rename(temp, target);
    } catch (err) {
      await rm(temp, { force: true });
      throw storageError(err);
    }
    return measured.result();
  }

  async stat(key: string): Promise<{ size: number } | null> {
    return stat(this.path(key)).then(
      (s) => (s.isFile() ? { size: s.size } : null),
      () => null,
    );
  }

  async open(key: string, range?: ByteRange): Promise<{ size: number; body: Readable } | null> {
    const found = await this.stat(key);
    return found && { size: found.size, body: createReadStream(this.path(key), range) };
  }

  async exists(key: string): Promise<boolean> {
    return (await this.stat(key)) !== null;
  }

  async remove(key: string): Promise<void> {
    await rm(this.path(key), { force: true, recursive: true });
  }
}

export const storageKey = (asset: { organizationId: string; projectId: string; id: string }) =>
  `${asset.organizationId}/${asset.projectId}/${asset.id}`;
