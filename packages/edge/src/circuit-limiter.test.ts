// A stalled store costs one call its time-out, then memory counts; a refusal from the store is an answer, not a failure.
import { Circuit, connectionState } from '@cp/config';
import { RateLimiterMemory, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { afterEach, describe, expect, it } from 'vitest';
import { CircuitLimiter } from './circuit-limiter';

const circuits: Circuit[] = [];
afterEach(() => circuits.splice(0).forEach((c) => c.close()));

/** A store that answers like memory, or (stalled) never. */
function store(points: number) {
  const memory = new RateLimiterMemory({ keyPrefix: 'rl_test', points, duration: 60 });
  const s = { stalled: false, calls: 0 };
  const limiter = new Proxy(memory, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        s.calls++;
        return s.stalled ? new Promise(() => undefined) : value.apply(target, args);
      };
    },
  }) as RateLimiterAbstract;
  return { s, limiter };
}

function circuit(probe: () => Promise<unknown>) {
  const c = new Circuit(connectionState(undefined, 'store'), {
    name: 'store',
    timeoutMs: 100,
    probeIntervalMs: 60_000,
    probe,
  });
  circuits.push(c);
  return c;
}

describe('CircuitLimiter', () => {
  it('counts in memory after one time-out, without asking the stalled store again', async () => {
    const { s, limiter } = store(5);
    const guarded = new CircuitLimiter(
      limiter,
      circuit(async () => undefined),
    );
    await guarded.consume('k');
    s.stalled = true;
    const started = Date.now();
    const first = await guarded.consume('k');
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
    expect(first.remainingPoints).toBe(4);
    const calls = s.calls;
    const again = Date.now();
    await guarded.consume('k');
    await guarded.get('k');
    expect(Date.now() - again).toBeLessThan(50);
    expect(s.calls).toBe(calls);
  });

  it('passes the store’s refusal on as a refusal, and stays closed', async () => {
    const { limiter } = store(1);
    const c = circuit(async () => undefined);
    const guarded = new CircuitLimiter(limiter, c);
    await guarded.consume('k');
    await expect(guarded.consume('k')).rejects.toBeInstanceOf(RateLimiterRes);
    expect(c.up).toBe(true);
  });
});
