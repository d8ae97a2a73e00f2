// Sentence embeddings off the main thread: local MiniLM by default, a hosted OpenAI-compatible API when a key is configured.
import { createHash } from 'node:crypto';
import { join, resolve } from 'node:path';
import { Worker } from 'node:worker_threads';

export interface Embedder {
  /**
   * Which model's vectors these are: a stored vector is only reused for the same text under the same model. The local
   * model by its name; a hosted API by a digest of its key (the key picks the provider and the account, and is never
   * stored), so a new key embeds changed entries afresh.
   */
  readonly model: string;
  embed(texts: string[]): Promise<number[][]>;
  /** Whether the model's thread is running (it stops when idle). */
  readonly loaded: boolean;
  close(): Promise<void>;
}

// Tests run the TypeScript sources; the worker is always the built JavaScript (turbo builds before tests).
const WORKER_FILE = __filename.endsWith('.ts')
  ? resolve(__dirname, '../../dist/semantic/embedder-worker.js')
  : join(__dirname, 'embedder-worker.js');

/**
 * The model loads on first use, in its own thread, so start-up and requests never wait for it. After `idleMs`
 * without work the thread stops and its memory (~250 MB for the local model) goes back; the next
 * embedding loads it again (about a second, in the background indexer or the first semantic query).
 */
export function createEmbedder(options: { apiKey?: string; idleMs?: number } = {}): Embedder {
  let worker: Worker | undefined;
  let idleTimer: NodeJS.Timeout | undefined;
  let nextId = 1;
  const pending = new Map<number, { resolve(v: number[][]): void; reject(e: Error): void }>();
  const stop = () => {
    clearTimeout(idleTimer);
    const stopping = worker;
    worker = undefined;
    return stopping?.terminate();
  };
  const whenIdle = () => {
    if (pending.size > 0 || !options.idleMs) return;
    clearTimeout(idleTimer);
    idleTimer = setTimeout(() => void stop(), options.idleMs).unref();
  };
  const ensure = () => {
    clearTimeout(idleTimer);
    if (worker) return worker;
    worker = new Worker(WORKER_FILE, { workerData: { apiKey: options.apiKey } });
    worker.unref();
    worker.on('message', (msg: { id: number; vectors?: number[][]; error?: string }) => {
      const p = pending.get(msg.id);
      pending.delete(msg.id);
      if (msg.error !== undefined) p?.reject(new Error(msg.error));
      else p?.resolve(msg.vectors!);
      whenIdle();
    });
    const current = worker;
    current.on('error', (err) => {
      for (const p of pending.values()) p.reject(err);
      pending.clear();
      if (worker === current) worker = undefined;
    });
    return current;
  };
  return {
    model: options.apiKey
      ? `hosted:${createHash('sha256').update(options.apiKey).digest('base64url').slice(0, 16)}`
      : 'local:minilm-l6-v2',
    get loaded() {
      return worker !== undefined;
    },
    embed(texts) {
      if (texts.length === 0) return Promise.resolve([]);
      const id = nextId++;
      return new Promise((resolveVectors, reject) => {
        pending.set(id, { resolve: resolveVectors, reject });
        ensure().postMessage({ id, texts });
      });
    },
    async close() {
      await stop();
    },
  };
}
