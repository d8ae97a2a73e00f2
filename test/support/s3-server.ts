// An S3-protocol server for black-box tests: an `s3rver` process behind a small recording relay, to stop mid-test.
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { processServer, type FaultServer } from './fault-servers';
import { tempDir } from './leftovers';
import { freePort, ROOT } from './service';

const BUCKET = 'assets';
const CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export interface S3Server {
  /** The environment that points a service (or the CLI) at the bucket, through the relay. */
  env: Record<string, string>;
  /** The s3rver process: stop it for an outage, start it again on the same port. */
  process: FaultServer;
  /** Every key in the bucket under `prefix`, read from s3rver directly. */
  keys(prefix?: string): Promise<string[]>;
  /**
   * Multipart uploads as the relay saw them: how many were begun, and the ids of those never ended (neither completed
   * nor aborted). s3rver does not implement AbortMultipartUpload, so the relay checks the request rather than its effect.
   */
  multipartUploads(): { begun: number; open: string[] };
  /**
   * From now on, presigned requests signed before this moment are refused, as a store refuses a signature whose
   * temporary credentials have expired (AWS answers 400 `ExpiredToken`; others 403 `AccessDenied`); `undefined` takes
   * them again. `refusedSignatures` counts the refusals so far.
   */
  refuseSignedBefore(moment: Date | undefined, status?: 400 | 403): void;
  refusedSignatures(): number;
  destroy(): Promise<void>;
}

/** Which presigned requests the relay refuses (`refuseSignedBefore`), and how many it has refused. */
interface Signatures {
  /** `X-Amz-Date` form (`20261128T224411Z`), which sorts as the time does. */
  refusedBefore?: string;
  status: 400 | 403;
  refused: number;
}

/**
 * The relay forwards every request unchanged (but for presigned ones `signatures` refuses) and notes multipart uploads'
 * ids as s3rver creates them and as the client completes or aborts them. While s3rver is down it drops the client's
 * connection, as an unreachable store would.
 */
function relay(target: () => number, begun: Set<string>, ended: Set<string>, signatures: Signatures): Server {
  return createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://relay');
    const signedAt = url.searchParams.get('X-Amz-Date');
    if (signedAt && signatures.refusedBefore && signedAt < signatures.refusedBefore) {
      signatures.refused++;
      const code = signatures.status === 400 ? 'ExpiredToken' : 'AccessDenied';
      res.writeHead(signatures.status, { 'content-type': 'application/xml' });
      res.end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code></Error>`);
      return;
    }
    const uploadId = url.searchParams.get('uploadId');
    if (uploadId && (req.method === 'DELETE' || req.method === 'POST')) ended.add(uploadId);
    const upstream = request(
      { host: '127.0.0.1', port: target(), method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        if (req.method === 'POST' && url.searchParams.has('uploads')) {
          let xml = '';
          answer.on('data', (c: Buffer) => (xml += c.toString()));
          answer.on('end', () => {
            const id = /<UploadId>([^<]+)<\/UploadId>/.exec(xml)?.[1];
            if (id) begun.add(id);
          });
        }
        answer.pipe(res);
        // s3rver killed mid-answer: the client must see a broken connection, not wait for bytes that will not come.
        answer.on('close', () => answer.complete || res.destroy());
      },
    );
    upstream.on('error', () => (req.destroy(), res.destroy()));
    // The client gave up (a stalled s3rver): so does the relay, instead of waiting on it forever.
    res.on('close', () => res.writableFinished || upstream.destroy());
    req.on('error', () => upstream.destroy());
    req.pipe(upstream);
  });
}

export async function startS3(): Promise<S3Server> {
  const dir = tempDir('cp-s3rver-');
  const port = await freePort();
  const process = processServer(
    (p) => `http://127.0.0.1:${p}`,
    (p) => [
      globalThis.process.execPath,
      [
        join(ROOT, 'node_modules/s3rver/bin/s3rver.js'),
        ...['-d', dir, '-a', '127.0.0.1', '-p', String(p), '--silent', '--configure-bucket', BUCKET],
        // The SDK signs streamed bodies in ways s3rver checks imperfectly; signatures are not what these tests are about.
        '--allow-mismatched-signatures',
      ],
    ],
    port,
  );
  await process.start();
  const begun = new Set<string>();
  const ended = new Set<string>();
  const signatures: Signatures = { status: 403, refused: 0 };
  const server = relay(() => port, begun, ended, signatures);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = new S3Client({
    region: 'us-east-1',
    endpoint: process.url,
    forcePathStyle: true,
    credentials: CREDENTIALS,
  });
  return {
    env: {
      STORAGE_URL: `s3://${BUCKET}/cp`,
      S3_ENDPOINT: endpoint,
      S3_FORCE_PATH_STYLE: 'true',
      S3_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
    },
    process,
    async keys(prefix = '') {
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(
          new ListObjectsV2Command({ Bucket: BUCKET, Prefix: `cp/${prefix}`, ContinuationToken: token }),
        );
        keys.push(...(page.Contents ?? []).map((o) => o.Key!.slice('cp/'.length)));
        token = page.NextContinuationToken;
      } while (token);
      return keys;
    },
    multipartUploads: () => ({ begun: begun.size, open: [...begun].filter((id) => !ended.has(id)) }),
    refuseSignedBefore(moment, status = 403) {
      signatures.refusedBefore = moment?.toISOString().replace(/[-:]|\.\d+/g, '');
      signatures.status = status;
    },
    refusedSignatures: () => signatures.refused,
    async destroy() {
      client.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await process.destroy();
    },
  };
}
