import { describe, expect, it } from 'vitest';
import { BrokerTimeoutError, Circuit, CircuitOpenError } from './circuit';
import { connectionState } from './connection-state';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const never = () => new Promise<never>(() => undefined);

/** A broker whose answers the test switches: `stalled` leaves every call and probe unanswered. */
function broker() {
  const b = { stalled: false, calls: 0, answer: () => (b.calls++, b.stalled ? never() : Promise.resolve('ok')) };
  return b;
}

describe('Circuit', () => {
  it('bounds a stalled call by the time-out, then refuses at once until a probe is answered', async () => {
    const b = broker();
    const circuit = new Circuit(connectionState(undefined, 'x'), {
      name: 'x',
      timeoutMs: 100,
      probeIntervalMs: 20,
      probe: () => b.answer(),
    });
    try {
      expect(await circuit.run(() => b.answer())).toBe('ok');
      b.stalled = true;
      let started = Date.now();
      await expect(circuit.run(() => b.answer())).rejects.toBeInstanceOf(BrokerTimeoutError);
      expect(Date.now() - started).toBeLessThan(1000);
      expect(circuit.up).toBe(false);
      const before = b.calls;
      started = Date.now();
      await expect(circuit.run(() => b.answer())).rejects.toBeInstanceOf(CircuitOpenError);
      expect(Date.now() - started).toBeLessThan(50);
      // Refused calls never reach the broker (the probe's may).
      expect(b.calls - before).toBeLessThanOrEqual(1);
      b.stalled = false;
      for (let waited = 0; !circuit.up && waited < 1000; waited += 10) await sleep(10);
      expect(circuit.up).toBe(true);
      expect(await circuit.run(() => b.answer())).toBe('ok');
    } finally {
      circuit.close();
    }
  });

  it('notices a stall without traffic: the probe opens it', async () => {
    const b = broker();
    const circuit = new Circuit(connectionState(undefined, 'x'), {
      name: 'x',
      timeoutMs: 50,
      probeIntervalMs: 20,
      probe: () => b.answer(),
    });
    try {
      b.stalled = true;
      for (let waited = 0; circuit.up && waited < 1000; waited += 10) await sleep(10);
      expect(circuit.up).toBe(false);
    } finally {
      circuit.close();
    }
  });
});
