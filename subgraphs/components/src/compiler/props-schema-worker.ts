// Runs inside a worker thread: derives a props schema, so a pathological `Props` type can't stall the service.
import { parentPort } from 'node:worker_threads';
import { derivePropsSchema } from './props-schema';
import { announceReady } from './worker-pool';

parentPort?.on('message', ({ id, source }: { id: number; source: string }) => {
  try {
    parentPort!.postMessage({ id, ok: true, schema: derivePropsSchema(source) });
  } catch (err) {
    const content = (err as { details?: { content?: string } }).details?.content ?? (err as Error).message;
    parentPort!.postMessage({ id, ok: false, error: content });
  }
});

announceReady(parentPort);
