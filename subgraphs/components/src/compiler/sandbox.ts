// Runs a component's `metadata()` in QuickJS inside worker threads the service can kill: no host access, capped CPU and memory.
import { BadRequestError } from '@cp/errors';
import { join, resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { SandboxReply, SandboxRequest } from './sandbox-worker';

export interface SandboxLimits {
  /** CPU budget inside QuickJS (interrupt handler). */
  timeoutMs: number;
  /** QuickJS heap limit. */
  memoryBytes: number;
}

export const DEFAULT_LIMITS: SandboxLimits = { timeoutMs: 500, memoryBytes: 32 * 1024 * 1024 };

// Tests run the TypeScript sources; the worker is always the built JavaScript (turbo builds before tests).
const WORKER_FILE = __filename.endsWith('.ts') ? resolve(__dirname, '../../dist/compiler/sandbox-worker.js') : join(__dirname, 'sandbox-worker.js');

/** A worker that missed its deadline by this much is assumed stuck outside QuickJS's control and is killed. */
const BACKSTOP_MS = 1500;

interface Pending {
  resolve(reply: SandboxReply): void;
  timer: NodeJS.Timeout;
}

class SandboxWorker {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();

  run(request: SandboxRequest): Promise<SandboxReply> {
    const worker = this.ensure();
    return new Promise((resolveReply) => {
      const timer = setTimeout(() => this.fail(`metadata() ran longer than ${request.timeoutMs} ms.`), request.timeoutMs + BACKSTOP_MS);
      this.pending.set(request.id, { resolve: resolveReply, timer });
      worker.postMessage(request);
    });
  }

  get load(): number {
    return this.pending.size;
  }

  private ensure(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(WORKER_FILE, {
      // The V8 side of the worker stays small too; QuickJS's own heap is capped separately.
      resourceLimits: { maxOldGenerationSizeMb: 96, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 },
      env: {},
    });
    worker.on('message', (reply: SandboxReply) => {
      const pending = this.pending.get(reply.id);
      if (!pending) return;
      clearTimeout(pending.timer);
      this.pending.delete(reply.id);
      pending.resolve(reply);
    });
    worker.on('error', (err) => this.fail(`The sandbox failed: ${err.message}`));
    worker.on('exit', () => this.fail('The sandbox stopped.'));
    worker.unref();
    this.worker = worker;
    return worker;
  }

  /** Answers every pending call with `error` and replaces the worker on next use. */
  private fail(error: string): void {
    const worker = this.worker;
    this.worker = undefined;
    for (const [id, pending] of this.pending) {
      clearTimeout(pending.timer);
      pending.resolve({ id, ok: false, error });
    }
    this.pending.clear();
    void worker?.terminate();
  }
}

const POOL_SIZE = 2;
const pool = Array.from({ length: POOL_SIZE }, () => new SandboxWorker());
let nextId = 1;

/** Evaluates the component script and returns what `metadata()` returned; every failure is a 400 with `details.content`. */
export async function runMetadata(script: string, limits: SandboxLimits = DEFAULT_LIMITS): Promise<Record<string, unknown>> {
  const worker = pool.reduce((a, b) => (b.load < a.load ? b : a));
  const reply = await worker.run({ id: nextId++, script, ...limits });
  if (!reply.ok) throw new BadRequestError('metadata() failed in the sandbox.', { content: reply.error });
  const value: unknown = JSON.parse(reply.json);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new BadRequestError('metadata() must return an object.', { content: 'metadata() must return an object with `title` and `description`.' });
  }
  return value as Record<string, unknown>;
}
