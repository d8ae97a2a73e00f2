// Derives props schemas in a worker with a deadline: type checking is unbounded work on untrusted input.
import { BadRequestError } from '@cp/errors';
import { builtWorkerFile, WorkerPool } from './worker-pool';

const DEADLINE_MS = 3000;

// One worker: the TypeScript compiler is large, and warm it answers in a few milliseconds.
const pool = new WorkerPool(builtWorkerFile('props-schema-worker'), 1, { maxOldGenerationSizeMb: 256, stackSizeMb: 4 });

export async function propsSchemaOf(source: string): Promise<Record<string, unknown>> {
  const reply = await pool.run<{ schema: Record<string, unknown> }>(
    { source },
    DEADLINE_MS,
    `Deriving the Props schema took longer than ${DEADLINE_MS} ms.`,
  );
  if (!reply.ok)
    throw new BadRequestError('The Props type cannot be described as JSON Schema.', { content: reply.error });
  return reply.schema;
}
