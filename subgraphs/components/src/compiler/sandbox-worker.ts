// Runs inside a worker thread: evaluates untrusted component code in QuickJS (WASM) with CPU and memory caps.
import { parentPort } from 'node:worker_threads';
import { getQuickJS } from 'quickjs-emscripten';
import { announceReady } from './worker-pool';

interface SandboxRequest {
  id: number;
  script: string;
  timeoutMs: number;
  memoryBytes: number;
}

type SandboxReply = { id: number; ok: true; json: string } | { id: number; ok: false; error: string };

const quickjs = getQuickJS();

/**
 * QuickJS calls the interrupt handler about every 10,000 bytecode operations: counting those calls is a CPU budget
 * ("fuel") that a busy host cannot shrink, unlike a wall-clock deadline, which refused healthy components whenever
 * the machine was loaded. About 4 calls per millisecond of tight-loop CPU on our hardware; opcodes that allocate
 * run slower per call, so a wall-clock cap at 4× the budget still bounds them.
 */
const CALLS_PER_MS = 4;
const WALL_FACTOR = 4;

function cpuBudget(timeoutMs: number): () => boolean {
  let fuel = timeoutMs * CALLS_PER_MS;
  const wallDeadline = Date.now() + timeoutMs * WALL_FACTOR;
  return () => --fuel < 0 || Date.now() > wallDeadline;
}

/** The script defines `__component`; the result crosses back as a JSON string, never as a live object. */
async function run({ id, script, timeoutMs, memoryBytes }: SandboxRequest): Promise<SandboxReply> {
  const runtime = (await quickjs).newRuntime();
  runtime.setMemoryLimit(memoryBytes);
  runtime.setMaxStackSize(512 * 1024);
  runtime.setInterruptHandler(cpuBudget(timeoutMs));
  const vm = runtime.newContext();
  try {
    const code = `${script}
;(() => {
  if (typeof __component !== 'object' || __component === null || typeof __component.metadata !== 'function') {
    throw new Error('The source must export a function metadata().');
  }
  // view and layout components are both rendered through their default export (the content module): without one
  // every entry of the project would fail to bundle, so the component itself is refused.
  if (typeof __component.default !== 'function') {
    throw new Error('The source must \`export default\` its render function: (props, children) => string.');
  }
  return JSON.stringify(__component.metadata());
})()`;
    const result = vm.evalCode(code, 'component.js');
    if (result.error) {
      const error = vm.dump(result.error) as { name?: string; message?: string } | string;
      result.error.dispose();
      const message =
        typeof error === 'string' ? error : `${error?.name ?? 'Error'}: ${error?.message ?? String(error)}`;
      return {
        id,
        ok: false,
        error: /interrupted/i.test(message) ? `metadata() ran longer than ${timeoutMs} ms.` : message,
      };
    }
    const json = vm.dump(result.value);
    result.value.dispose();
    return typeof json === 'string'
      ? { id, ok: true, json }
      : { id, ok: false, error: 'metadata() must return a JSON object.' };
  } finally {
    vm.dispose();
    runtime.dispose();
  }
}

void quickjs.then(() => announceReady(parentPort));

parentPort?.on('message', (request: SandboxRequest) => {
  run(request).then(
    (reply) => parentPort!.postMessage(reply),
    (err: Error) => parentPort!.postMessage({ id: request.id, ok: false, error: err.message } satisfies SandboxReply),
  );
});
