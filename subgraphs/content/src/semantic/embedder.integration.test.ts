// The local model's thread stops after its idle time and comes back on the next embedding (idle memory).
import { afterAll, describe, expect, it } from 'vitest';
import { createEmbedder } from './embedder';

describe('local embedder', () => {
  const embedder = createEmbedder({ idleMs: 300 });
  afterAll(() => embedder.close());

  it('unloads the model when idle and loads it again on demand, with the same vectors', async () => {
    expect(embedder.loaded).toBe(false);
    const [first] = await embedder.embed(['a loaf of sourdough bread']);
    expect(first.length).toBeGreaterThan(100);
    const deadline = Date.now() + 10_000;
    while (embedder.loaded && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(embedder.loaded).toBe(false);
    const [again] = await embedder.embed(['a loaf of sourdough bread']);
    expect(embedder.loaded).toBe(true);
    expect(again).toEqual(first);
  }, 60_000);
});
