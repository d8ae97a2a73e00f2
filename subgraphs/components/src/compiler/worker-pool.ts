// A few long-lived worker threads for untrusted or unbounded work: a deadline per call, and a stuck worker is killed and replaced.
import { join, resolve } from 'node:path';
import { Worker, type ResourceLimits } from 'node:worker_threads';

/** Every reply carries the request id; failures carry a message for `details.content`. */
export type WorkerReply<T> = ({ ok: true } & T) | { ok: false; error: string };

interface Pending {
  resolve(reply: WorkerReply<object>): void;
  timer?: NodeJS.Timeout;
}

/** A worker announces `{ready: true}` once its imports are loaded; loading may take this long on a busy machine. */
const STARTUP_TIMEOUT_MS = 60_000;

/** Called by a worker module after its imports have loaded, so deadlines never count a cold start. */
export function announceReady(port: { postMessage(message: unknown): void } | null): void {
  port?.postMessage({ ready: true });
}

/** Tests run the TypeScript sources; workers are always the built JavaScript (turbo builds before tests). */
export function builtWorkerFile(name: string): string {
  return __filename.endsWith('.ts')
    ? resolve(__dirname, `../../dist/compiler/${name}.js`)
    : join(__dirname, `${name}.js`);
}

class PooledWorker {
  private worker: Worker | undefined;
  private ready: Promise<void> | undefined;
  private readonly pending = new Map<number, Pending>();

  constructor(
    private readonly file: string,
    private readonly resourceLimits: ResourceLimits,
  ) {}

  get load(): number {
    return this.pending.size;
  }

  /** The deadline starts when the worker is ready: loading the TypeScript compiler is not the caller's fault. */
  run<T>(id: number, message: object, deadlineMs: number, timeoutError: string): Promise<WorkerReply<T>> {
    const worker = this.ensure();
    const ready = this.ready!;
    return new Promise((resolveReply) => {
      const pending: Pending = { resolve: resolveReply as Pending['resolve'] };
      this.pending.set(id, pending);
      void ready.then(() => {
        if (this.worker !== worker || !this.pending.has(id)) return;
        pending.timer = setTimeout(() => this.fail(timeoutError), deadlineMs);
        worker.postMessage({ ...message, id });
      });
    });
  }

  private ensure(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(this.file, { resourceLimits: this.resourceLimits, env: {} });
    this.ready = new Promise<void>((resolveReady) => {
      const startup = setTimeout(
        () => this.worker === worker && this.fail('The worker did not start.'),
        STARTUP_TIMEOUT_MS,
      );
      startup.unref();
      worker.once('message', () => (clearTimeout(startup), resolveReady()));
    });
    worker.on('message', (reply: { id: number; ready?: true } & WorkerReply<object>) => {
      if (reply.ready) return;
      const pending = this.pending.get(reply.id);
      if (!pending) return;
      clearTimeout(pending.timer);
      this.pending.delete(reply.id);
      pending.resolve(reply);
    });
    // A replaced worker's late `error`/`exit` must not fail the calls of its successor.
    worker.on('error', (err) => this.worker === worker && this.fail(`The worker failed: ${err.message}`));
    worker.on('exit', () => this.worker === worker && this.fail('The worker stopped.'));
    worker.unref();
    this.worker = worker;
    return worker;
  }

  /** Answers every pending call with `error` and replaces the worker on next use. */
  private fail(error: string): void {
    const worker = this.worker;
    this.worker = undefined;
    for (const pending of this.pending.values()) {
      clearTimeout(pending.timer);
      pending.resolve({ ok: false, error });
    }
    this.pending.clear();
    void worker?.terminate();
  }
}

export class WorkerPool {
  private readonly workers: PooledWorker[];
  private nextId = 1;

  constructor(file: string, size: number, resourceLimits: ResourceLimits) {
    this.workers = Array.from({ length: size }, () => new PooledWorker(file, resourceLimits));
  }

  /** Runs on the least busy worker; past `deadlineMs` the worker is terminated and the call answers `timeoutError`. */
  run<T>(message: object, deadlineMs: number, timeoutError: string): Promise<WorkerReply<T>> {
    const worker = this.workers.reduce((a, b) => (b.load < a.load ? b : a));
    return worker.run<T>(this.nextId++, message, deadlineMs, timeoutError);
  }
}
