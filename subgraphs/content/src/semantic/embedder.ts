// Sentence embeddings off the main thread: local MiniLM by default, a hosted OpenAI-compatible API when a key is configured.
import { join, resolve } from 'node:path';
import { Worker } from 'node:worker_threads';

export interface Embedder {
  embed(texts: string[]): Promise<number[][]>;
  close(): Promise<void>;
}

// Tests run the TypeScript sources; the worker is always the built JavaScript (turbo builds before tests).
const WORKER_FILE = __filename.endsWith('.ts') ? resolve(__dirname, '../../dist/semantic/embedder-worker.js') : join(__dirname, 'embedder-worker.js');

/** The model loads on first use, in its own thread, so start-up and requests never wait for it. */
export function createEmbedder(options: { apiKey?: string } = {}): Embedder {
  let worker: Worker | undefined;
  let nextId = 1;
  const pending = new Map<number, { resolve(v: number[][]): void; reject(e: Error): void }>();
  const ensure = () => {
    if (worker) return worker;
    worker = new Worker(WORKER_FILE, { workerData: { apiKey: options.apiKey } });
    worker.unref();
    worker.on('message', (msg: { id: number; vectors?: number[][]; error?: string }) => {
      const p = pending.get(msg.id);
      pending.delete(msg.id);
      if (msg.error !== undefined) p?.reject(new Error(msg.error));
      else p?.resolve(msg.vectors!);
    });
    worker.on('error', (err) => {
      for (const p of pending.values()) p.reject(err);
      pending.clear();
      worker = undefined;
    });
    return worker;
  };
  return {
    embed(texts) {
      if (texts.length === 0) return Promise.resolve([]);
      const id = nextId++;
      return new Promise((resolveVectors, reject) => {
        pending.set(id, { resolve: resolveVectors, reject });
        ensure().postMessage({ id, texts });
      });
    },
    async close() {
      await worker?.terminate();
      worker = undefined;
    },
  };
}
