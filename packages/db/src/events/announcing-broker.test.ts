// A write waits for its own position to be carried by the shared broker, not for an older attempt still in flight.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { connectionState } from '@cp/config';
import { AnnouncingBroker } from './announcing-broker';
import type { SharedBroker } from './broker';

const runs = { seed: Number(process.env.FC_SEED ?? 20261125), numRuns: Number(process.env.FC_RUNS ?? 40) };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A shared broker whose publishes take the given times (ms) in turn and fail where the plan says so. */
class Wire implements SharedBroker {
  readonly kind = 'redis';
  readonly connected = true;
  readonly state = connectionState(undefined, 'wire');
  carried = -1n;
  failures: number[] = [];
  private attempt = 0;
  constructor(private readonly plan: { ms: number; fails: boolean }[]) {}
  async publish(position: string) {
    const step = this.plan[this.attempt++ % this.plan.length]!;
    await sleep(step.ms);
    if (step.fails) {
      this.failures.push(performance.now());
      throw new Error('broker down');
    }
    if (BigInt(position) > this.carried) this.carried = BigInt(position);
  }
  async ping() {}
  subscribe() {}
  async close() {}
}

const options = { publishWaitMs: 250, timeoutMs: 1000, probeIntervalMs: 5 };

describe('AnnouncingBroker', () => {
  it('answers a publish only once the shared broker carried its position (or an attempt failed, or the broker counted as down)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ ms: fc.integer({ min: 0, max: 15 }), fails: fc.boolean() }), {
          minLength: 1,
          maxLength: 6,
        }),
        fc.array(fc.integer({ min: 0, max: 10 }), { minLength: 1, maxLength: 8 }),
        async (plan, gaps) => {
          const wire = new Wire(plan);
          const broker = new AnnouncingBroker(wire, options);
          const answers: Promise<void>[] = [];
          for (const [i, gap] of gaps.entries()) {
            const position = BigInt(i + 1);
            const asked = performance.now();
            // A failed attempt opened the circuit: until the probe is answered, writes do not wait.
            const down = !broker.connected;
            answers.push(
              broker.publish(String(position)).then(() => {
                const failedMeanwhile = wire.failures.some((at) => at >= asked);
                expect(wire.carried >= position || failedMeanwhile || down, `position ${position}`).toBe(true);
              }),
            );
            await sleep(gap);
          }
          await Promise.all(answers);
          await broker.close();
        },
      ),
      runs,
    );
  });
});
