// Runs inside a worker thread: evaluates untrusted component code in QuickJS (WASM) with CPU and memory caps.
import { parentPort } from 'node:worker_threads';
import { getQuickJS, shouldInterruptAfterDeadline } from 'quickjs-emscripten';

interface SandboxRequest {
  id: number;
  script: string;
  timeoutMs: number;
  memoryBytes: number;
}

type SandboxReply = { id: number; ok: true; json: string } | { id: number; ok: false; error: string };

const quickjs = getQuickJS();

/** The script defines `__component`; the result crosses back as a JSON string, never as a live object. */
async function run({ id, script, timeoutMs, memoryBytes }: SandboxRequest): Promise<SandboxReply> {
  const runtime = (await quickjs).newRuntime();
  runtime.setMemoryLimit(memoryBytes);
  runtime.setMaxStackSize(512 * 1024);
  runtime.setInterruptHandler(shouldInterruptAfterDeadline(Date.now() + timeoutMs));
  const vm = runtime.newContext();
  try {
    const code = `${script}
;(() => {
  if (typeof __component !== 'object' || __component === null || typeof __component.metadata !== 'function') {
    throw new Error('The source must export a function metadata().');
  }
  return JSON.stringify(__component.metadata());
})()`;
    const result = vm.evalCode(code, 'component.js');
    if (result.error) {
      const error = vm.dump(result.error) as { name?: string; message?: string } | string;
      result.error.dispose();
      const message = typeof error === 'string' ? error : `${error?.name ?? 'Error'}: ${error?.message ?? String(error)}`;
      return { id, ok: false, error: /interrupted/i.test(message) ? `metadata() ran longer than ${timeoutMs} ms.` : message };
    }
    const json = vm.dump(result.value);
    result.value.dispose();
    return typeof json === 'string' ? { id, ok: true, json } : { id, ok: false, error: 'metadata() must return a JSON object.' };
  } finally {
    vm.dispose();
    runtime.dispose();
  }
}

parentPort?.on('message', (request: SandboxRequest) => {
  run(request).then(
    (reply) => parentPort!.postMessage(reply),
    (err: Error) => parentPort!.postMessage({ id: request.id, ok: false, error: err.message } satisfies SandboxReply),
  );
});
