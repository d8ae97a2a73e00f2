// Reads a bucket's objects through presigned GET URLs kept per key, so a CDN read is one plain HTTP request.
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { LRUCache } from 'lru-cache';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { ByteRange } from './storage';

/**
 * How long a signature is valid, and how long it is reused. The margin between the two covers a download that starts
 * just before reuse ends. Temporary credentials can expire sooner; a refused signature is made again (`open`).
 */
const SIGNED_FOR_S = 3600;
const REUSED_FOR_MS = 30 * 60_000;

/** At most this many URLs are kept (about half a kilobyte each): the hot objects' keys. */
const MAX_URLS = 10_000;

export interface ReadTimeouts {
  /** The store's answer (its headers) must begin within this. */
  answerMs: number;
  /** Silence allowed between two packets of a body the client reads slowly. */
  idleMs: number;
}

/** Thrown for a store that does not answer in time or answers 5xx; the caller makes it an outage (503). */
export class StoreUnreachableError extends Error {
  override readonly name = 'StoreUnreachableError';
}

/**
 * A read through the SDK costs about a millisecond of CPU (its middleware stack, a SigV4 signature, its response
 * parsing), as much as the rest of a CDN request; a presigned URL is signed once and then read with a keep-alive agent.
 * The URLs never leave the process: clients still get our own CDN URLs, 304s and envelopes.
 */
export class PresignedReads {
  private readonly urls = new LRUCache<string, string>({ max: MAX_URLS, ttl: REUSED_FOR_MS });
  private readonly transport: typeof http | typeof https;
  private readonly agent: http.Agent;

  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
    private readonly timeouts: ReadTimeouts,
    secure: boolean,
  ) {
    this.transport = secure ? https : http;
    this.agent = new this.transport.Agent({ keepAlive: true, maxSockets: 50 });
  }

  /**
   * The object (or the range of it) as a response to stream on, or null when the key holds nothing. One more attempt,
   * within the same deadline for the store's answer, after a connection reset before any answer (a kept-alive socket
   * the store had just closed), a 5xx, or a reused signature the store refuses (temporary credentials expired since it
   * was made: 403, or AWS's 400 `ExpiredToken`), which is then signed again.
   */
  async open(key: string, range?: ByteRange): Promise<IncomingMessage | null> {
    const deadline = Date.now() + this.timeouts.answerMs;
    let cached = this.urls.get(key);
    for (let attempt = 1; ; attempt++) {
      const again = attempt < 2;
      const url = cached ?? (await this.sign(key));
      const answer = await this.request(url, deadline, range).catch((err: { code?: string }) => {
        if (again && (err.code === 'ECONNRESET' || err.code === 'EPIPE')) return undefined;
        throw err;
      });
      if (!answer) continue;
      const status = answer.statusCode ?? 0;
      if (status === 200 || status === 206) return answer;
      answer.resume();
      if (status === 404) return null;
      if (cached && (status === 400 || status === 403)) {
        this.urls.delete(key);
        cached = undefined;
        if (again) continue;
      }
      if (status >= 500 && again) continue;
      if (status >= 500) throw new StoreUnreachableError(`The store answered ${status}.`);
      throw new Error(`The store refused a read of ${key}: ${status}.`);
    }
  }

  private async sign(key: string): Promise<string> {
    const command = new GetObjectCommand({ Bucket: this.bucket, Key: key });
    const url = await getSignedUrl(this.client, command, { expiresIn: SIGNED_FOR_S });
    this.urls.set(key, url);
    return url;
  }

  private request(url: string, deadline: number, range?: ByteRange): Promise<IncomingMessage> {
    const headers = range ? { range: `bytes=${range.start}-${range.end}` } : undefined;
    const request = this.transport.request(url, { agent: this.agent, headers });
    return new Promise((resolve, reject) => {
      const late = () => request.destroy(new StoreUnreachableError('The store did not answer in time.'));
      const timer = setTimeout(late, Math.max(0, deadline - Date.now()));
      request.setTimeout(this.timeouts.idleMs, late);
      request.once('response', (answer) => (clearTimeout(timer), resolve(answer)));
      // Also after the answer began: a body cut short then fails its own stream, which the caller pipes.
      request.on('error', (err) => (clearTimeout(timer), reject(err)));
      request.end();
    });
  }
}
