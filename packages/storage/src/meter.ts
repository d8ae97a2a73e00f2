// Measures bytes as they stream into a store: size (with its limit), sha256 and the first bytes for type sniffing.
import { createHash } from 'node:crypto';
import { Transform } from 'node:stream';

export interface StoredObject {
  size: number;
  /** SHA-256 of the bytes, hex. */
  checksum: string;
  /** The first bytes, for type sniffing. */
  head: Buffer;
}

export class TooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`The file exceeds ${limit} bytes.`);
  }
}

const HEAD_BYTES = 4100;

/**
 * A pass-through that fails with `TooLargeError` at the first byte past `maxBytes`; `result()` once it has ended.
 * `exceeded()` tells afterwards whether the limit is what stopped it, whichever error the consumer reported.
 */
export function meter(maxBytes: number): { stream: Transform; result: () => StoredObject; exceeded: () => boolean } {
  const hash = createHash('sha256');
  let size = 0;
  const heads: Buffer[] = [];
  let headSize = 0;
  const stream = new Transform({
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
  return {
    stream,
    exceeded: () => size > maxBytes,
    result: () => ({ size, checksum: hash.digest('hex'), head: Buffer.concat(heads) }),
  };
}
