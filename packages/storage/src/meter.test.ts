import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describe, expect, it } from 'vitest';
import { meter, TooLargeError } from './meter';

const runs = { seed: Number(process.env.FC_SEED ?? 20261128), numRuns: Number(process.env.FC_RUNS ?? 200) };
const sink = () => new Writable({ write: (_chunk, _enc, done) => done() });

describe('meter', () => {
  it('passes any chunking of the bytes through with their size, sha256 and first bytes, up to the limit', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.uint8Array({ maxLength: 3000 }), { maxLength: 8 }),
        fc.nat({ max: 12_000 }),
        async (chunks, limit) => {
          const bytes = Buffer.concat(chunks);
          const measured = meter(limit);
          const passed: Buffer[] = [];
          const collect = new Writable({ write: (c, _e, done) => (passed.push(c), done()) });
          const run = pipeline(Readable.from(chunks.map((c) => Buffer.from(c))), measured.stream, collect);
          if (bytes.length > limit) {
            await expect(run).rejects.toBeInstanceOf(TooLargeError);
            expect(measured.exceeded()).toBe(true);
            // Not one byte past the limit went on to the store.
            expect(Buffer.concat(passed).length).toBeLessThanOrEqual(limit);
            return;
          }
          await run;
          expect(measured.exceeded()).toBe(false);
          expect(Buffer.concat(passed).equals(bytes)).toBe(true);
          const result = measured.result();
          expect(result.size).toBe(bytes.length);
          expect(result.checksum).toBe(createHash('sha256').update(bytes).digest('hex'));
          expect(result.head.equals(bytes.subarray(0, 4100))).toBe(true);
        },
      ),
      runs,
    );
  });

  it('refuses the first byte past the limit, even in a single large chunk', async () => {
    const measured = meter(10);
    await expect(pipeline(Readable.from([Buffer.alloc(11)]), measured.stream, sink())).rejects.toBeInstanceOf(
      TooLargeError,
    );
  });
});
