// The S3-compatible store (AWS S3, Cloudflare R2, MinIO, Ceph): streaming multipart uploads, ranged reads, prefix deletes.
import {
  DeleteObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  S3Client,
  type S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { UnavailableError } from '@cp/errors';
import { pipeline, type Readable } from 'node:stream';
import { meter, TooLargeError, type StoredObject } from './meter';
import { PresignedReads, StoreUnreachableError } from './presigned-reads';
import type { AssetStorage, ByteRange } from './storage';

export interface S3StorageOptions {
  bucket: string;
  /** Prepended to every key: empty, or a path ending in `/`. */
  prefix: string;
  endpoint?: string;
  region: string;
  forcePathStyle: boolean;
}

/**
 * S3's minimum part size. With one part in flight, an upload holds about two parts in memory (the one being sent and
 * the one being filled), whatever the file's size.
 */
const PART_BYTES = 5 * 1024 * 1024;

/**
 * How long a request waits for the store's answer (its headers; a download's body may then take as long as the client
 * reads). A stalled store (a frozen process, a partition) is an outage after this, not a request held for minutes.
 */
const ANSWER_TIMEOUT_MS = 5000;

/** Between two packets of a transfer (an upload's part, a download the client reads slowly), a longer silence. */
const IDLE_TIMEOUT_MS = 30_000;

/** A store that does not answer is an outage the client may retry (503 with Retry-After); it heals by itself. */
export class StoreUnavailableError extends UnavailableError {
  constructor(cause: unknown) {
    super('The file store is temporarily unavailable; retry shortly.');
    this.cause = cause;
  }
}

export class S3Storage implements AssetStorage {
  readonly client: S3Client;
  private readonly reads: PresignedReads;

  constructor(private readonly options: S3StorageOptions) {
    this.client = new S3Client({
      region: options.region,
      endpoint: options.endpoint,
      forcePathStyle: options.forcePathStyle,
      // One quick retry: the caller answers 503 with Retry-After rather than hold a request through a long outage.
      maxAttempts: 2,
      // Checksums the SDK would add by default are not understood by every S3-compatible server; ours is sha256.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      requestHandler: { connectionTimeout: 2000, requestTimeout: IDLE_TIMEOUT_MS },
    });
    const timeouts = { answerMs: ANSWER_TIMEOUT_MS, idleMs: IDLE_TIMEOUT_MS };
    const secure = !options.endpoint || options.endpoint.startsWith('https:');
    this.reads = new PresignedReads(this.client, options.bucket, timeouts, secure);
  }

  /** Runs `call`, aborting it when the store's answer has not begun within ANSWER_TIMEOUT_MS. */
  private async answered<T>(call: (options: { abortSignal: AbortSignal }) => Promise<T>): Promise<T> {
    const deadline = new AbortController();
    const timer = setTimeout(
      () => deadline.abort(new StoreUnreachableError(`No answer within ${ANSWER_TIMEOUT_MS} ms.`)),
      ANSWER_TIMEOUT_MS,
    );
    try {
      return await call({ abortSignal: deadline.signal });
    } finally {
      clearTimeout(timer);
    }
  }

  private key(key: string): string {
    return this.options.prefix + key;
  }

  async put(key: string, body: Readable, maxBytes: number): Promise<StoredObject> {
    const measured = meter(maxBytes);
    let streamError: Error | undefined;
    // pipeline destroys both streams when either fails: a refused body stops the upload, which then aborts.
    const source = pipeline(body, measured.stream, (err) => (streamError ??= err ?? undefined));
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.options.bucket, Key: this.key(key), Body: source },
      partSize: PART_BYTES,
      queueSize: 1,
      // Parts of a failed upload are discarded (AbortMultipartUpload): nothing is left to bill or to list.
      leavePartsOnError: false,
    });
    try {
      await upload.done();
    } catch (err) {
      // The store stopped reading: the body must not wait forever for a reader.
      source.destroy();
      await upload.abort().catch(() => undefined);
      if (measured.exceeded()) throw new TooLargeError(maxBytes);
      throw storeError(streamError && !isStoreError(err) ? streamError : err);
    }
    return measured.result();
  }

  async stat(key: string): Promise<{ size: number } | null> {
    try {
      const command = new HeadObjectCommand({ Bucket: this.options.bucket, Key: this.key(key) });
      const head = await this.answered((options) => this.client.send(command, options));
      return { size: head.ContentLength ?? 0 };
    } catch (err) {
      if (notFound(err)) return null;
      throw storeError(err);
    }
  }

  async open(key: string, range?: ByteRange): Promise<{ size: number; body: Readable } | null> {
    try {
      const answer = await this.reads.open(this.key(key), range);
      if (!answer) return null;
      // A ranged answer's Content-Range ends with the whole object's size.
      const { 'content-range': contentRange, 'content-length': length } = answer.headers;
      const size = Number(range ? contentRange?.split('/')[1] : length);
      if (!Number.isSafeInteger(size)) {
        answer.destroy();
        throw new StoreUnreachableError('The store answered without the object’s size.');
      }
      return { size, body: answer };
    } catch (err) {
      throw storeError(err);
    }
  }

  async exists(key: string): Promise<boolean> {
    return (await this.stat(key)) !== null;
  }

  /** The key itself, and every key under `key/` (an original's variants). */
  async remove(key: string): Promise<void> {
    const bucket = this.options.bucket;
    try {
      const keys = [this.key(key)];
      let token: string | undefined;
      do {
        const command = new ListObjectsV2Command({
          Bucket: bucket,
          Prefix: `${this.key(key)}/`,
          ContinuationToken: token,
        });
        const page = await this.answered((options) => this.client.send(command, options));
        keys.push(...(page.Contents ?? []).map((o) => o.Key!));
        token = page.NextContinuationToken;
      } while (token);
      // One request per key rather than DeleteObjects: that one needs a Content-MD5 not every compatible server takes.
      const commands = keys.map((k) => new DeleteObjectCommand({ Bucket: bucket, Key: k }));
      await Promise.all(commands.map((c) => this.answered((options) => this.client.send(c, options))));
    } catch (err) {
      throw storeError(err);
    }
  }
}

function notFound(err: unknown): boolean {
  const e = err as S3ServiceException;
  return e?.name === 'NotFound' || e?.name === 'NoSuchKey' || e?.$metadata?.httpStatusCode === 404;
}

/**
 * Network failures, time-outs (the SDK's, and ours: an abort at ANSWER_TIMEOUT_MS), throttling and 5xx: the store is
 * (for now) out of reach.
 */
function isStoreError(err: unknown): boolean {
  const e = err as S3ServiceException & { code?: string };
  if (e?.$metadata?.httpStatusCode !== undefined) return e.$metadata.httpStatusCode >= 500 || e.name === 'SlowDown';
  return (
    ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN'].includes(
      e?.code ?? '',
    ) || ['TimeoutError', 'RequestTimeout', 'AbortError', 'StoreUnreachableError'].includes(e?.name ?? '')
  );
}

/** An outage becomes StoreUnavailableError; anything else (access denied, no such bucket) stays as it is: a fault to fix. */
function storeError(err: unknown): unknown {
  return isStoreError(err) ? new StoreUnavailableError(err) : err;
}
