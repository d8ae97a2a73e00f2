// Runs a component's `metadata()` in QuickJS inside worker threads the service can kill: no host access, capped CPU and memory.
import { BadRequestError } from '@cp/errors';
import { builtWorkerFile, WorkerPool } from './worker-pool';

export interface SandboxLimits {
  /** CPU budget inside QuickJS (interrupt handler). */
  timeoutMs: number;
  /** QuickJS heap limit. */
  memoryBytes: number;
}

export const DEFAULT_LIMITS: SandboxLimits = { timeoutMs: 500, memoryBytes: 32 * 1024 * 1024 };

/** A worker that missed QuickJS's own wall-clock cap (4× the budget) by this much is assumed stuck and is killed. */
const BACKSTOP_MS = 1500;
const WALL_FACTOR = 4;

// The V8 side of the workers stays small too; QuickJS's own heap is capped separately.
const pool = new WorkerPool(builtWorkerFile('sandbox-worker'), 2, {
  maxOldGenerationSizeMb: 96,
  maxYoungGenerationSizeMb: 16,
  stackSizeMb: 4,
});

/** Evaluates the component script and returns what `metadata()` returned; every failure is a 400 with `details.content`. */
export async function runMetadata(
  script: string,
  limits: SandboxLimits = DEFAULT_LIMITS,
): Promise<Record<string, unknown>> {
  const reply = await pool.run<{ json: string }>(
    { script, ...limits },
    limits.timeoutMs * WALL_FACTOR + BACKSTOP_MS,
    `metadata() ran longer than ${limits.timeoutMs} ms.`,
  );
  if (!reply.ok) throw new BadRequestError('The component failed its checks in the sandbox.', { content: reply.error });
  const value: unknown = JSON.parse(reply.json);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new BadRequestError('metadata() must return an object.', {
      content: 'metadata() must return an object with `title` and `description`.',
    });
  }
  return value as Record<string, unknown>;
}
