// PollingWorker's promises under any interleaving of kicks, pass outcomes and a stop: one pass at a time, no kick
// lost, no pass without a cause, stop waits for the running pass and starts nothing after, failures never end the loop.
import type { Logger } from '@cp/config';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { PollingWorker } from './polling-worker';

const runs = { seed: Number(process.env.FC_SEED ?? 20261125), numRuns: Number(process.env.FC_RUNS ?? 300) };

type Outcome = 'ok' | 'more' | 'fail';

/** Passes that end when the test says so; every start and end is stamped with the test's step counter. */
class Probe extends PollingWorker {
  step = 0;
  active = 0;
  maxActive = 0;
  readonly passes: { start: number; end?: number; outcome?: Outcome; finish(outcome: Outcome): void }[] = [];

  constructor(logger: Logger, pollMs = 3_600_000, quietMs?: number) {
    super({ name: 'probe', what: 'probing', pollMs, quietMs, logger });
  }

  protected pass(): Promise<boolean> {
    this.active++;
    this.maxActive = Math.max(this.maxActive, this.active);
    return new Promise<boolean>((resolve, reject) => {
      const record = {
        start: this.step,
        finish: (outcome: Outcome) => {
          Object.assign(record, { end: this.step, outcome });
          this.active--;
          if (outcome === 'fail') reject(new Error('pass failed'));
          else resolve(outcome === 'more');
        },
      } as Probe['passes'][number];
      this.passes.push(record);
    });
  }

  get current() {
    return this.passes.find((p) => p.end === undefined);
  }
}

const settle = () => new Promise((resolve) => setImmediate(resolve));
type SpyLogger = Logger & { warn: ReturnType<typeof vi.fn>; info: ReturnType<typeof vi.fn> };
const logger = () => ({ warn: vi.fn(), info: vi.fn() }) as unknown as SpyLogger;

const action = fc.oneof(
  { weight: 4, arbitrary: fc.constant({ kind: 'kick' as const }) },
  {
    weight: 4,
    arbitrary: fc
      .constantFrom<Outcome>('ok', 'ok', 'more', 'fail')
      .map((outcome) => ({ kind: 'finish' as const, outcome })),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'stop' as const }) },
);

describe('PollingWorker', () => {
  it('runs one pass at a time, loses no kick, starts no pass without a cause, and stops cleanly', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(action, { maxLength: 40 }), async (actions) => {
        const log = logger();
        const worker = new Probe(log);
        const kicks: number[] = [0];
        worker.start();
        let stopAt: number | undefined;
        let stopped: Promise<void> | undefined;
        let stopDone = false;
        let runningAtStop: Probe['passes'][number] | undefined;
        for (const a of actions) {
          worker.step++;
          if (a.kind === 'kick') {
            kicks.push(worker.step);
            worker.kick();
          } else if (a.kind === 'finish') {
            worker.current?.finish(a.outcome);
          } else if (stopAt === undefined) {
            stopAt = worker.step;
            runningAtStop = worker.current;
            stopped = worker.stop().then(() => void (stopDone = true));
          }
          await settle();
          // stop() resolves only once the pass that was running when it was called has ended.
          if (stopDone && runningAtStop) expect(runningAtStop.end).toBeDefined();
        }
        // Let every pass end (the last ones succeed), as a quiet system would.
        for (let i = 0; worker.current && i < 1000; i++) {
          worker.step++;
          worker.current.finish('ok');
          await settle();
        }
        await stopped;

        expect(worker.maxActive).toBeLessThanOrEqual(1);
        for (const kick of kicks) {
          // A kick is answered by a pass that starts at or after it, unless stop() came first.
          if (stopAt !== undefined && kick >= stopAt) continue;
          const stoppedFirst = stopAt !== undefined && worker.passes.every((p) => p.start < stopAt!);
          const answered = worker.passes.some((p) => p.start >= kick) || stoppedFirst;
          expect(answered).toBe(true);
        }
        worker.passes.forEach((pass, i) => {
          // Nothing starts after stop(); every other pass has a cause: a kick since the previous one started, or its
          // leftover work.
          if (stopAt !== undefined) expect(pass.start).toBeLessThan(stopAt);
          if (i === 0) return;
          const previous = worker.passes[i - 1];
          const caused = previous.outcome === 'more' || kicks.some((k) => k > previous.start && k <= pass.start);
          expect(caused).toBe(true);
          expect(pass.start).toBeGreaterThanOrEqual(previous.end!);
        });
        // Failures are logged once per streak, recovery once after it: an outage does not flood the log.
        const outcomes = worker.passes.map((p) => p.outcome);
        const streaks = outcomes.filter((o, i) => o === 'fail' && outcomes[i - 1] !== 'fail').length;
        expect(log.warn).toHaveBeenCalledTimes(streaks);
        await worker.stop();
      }),
      runs,
    );
  });

  it('keeps polling on its timer after passes fail', async () => {
    const log = logger();
    let calls = 0;
    const worker = new (class extends PollingWorker {
      protected async pass() {
        calls++;
        if (calls <= 3) throw new Error('database away');
      }
    })({ name: 'flaky', what: 'flaking', pollMs: 5, logger: log });
    worker.start();
    await vi.waitFor(() => expect(calls).toBeGreaterThan(5), { timeout: 5000 });
    await worker.stop();
    const after = calls;
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(calls).toBe(after);
    expect(log.warn).toHaveBeenCalledTimes(1);
    expect(log.info).toHaveBeenCalledWith('flaking works again');
  });

  it('with quietMs, the timer only starts a pass when none started for that long', async () => {
    vi.useFakeTimers();
    try {
      const worker = new Probe(logger(), 10, 100);
      worker.start();
      worker.current!.finish('ok');
      await vi.advanceTimersByTimeAsync(50);
      expect(worker.passes).toHaveLength(1);
      await vi.advanceTimersByTimeAsync(60);
      expect(worker.passes).toHaveLength(2);
      worker.current!.finish('ok');
      await worker.stop();
    } finally {
      vi.useRealTimers();
    }
  });
});
