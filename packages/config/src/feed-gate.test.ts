import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FeedGate } from './feed-gate';

const runs = { seed: Number(process.env.FC_SEED ?? 20261125), numRuns: Number(process.env.FC_RUNS ?? 200) };

const position = fc.bigInt({ min: 0n, max: 12n });
const step = fc.oneof(
  fc.record({ op: fc.constant('announce' as const), position }),
  fc.record({ op: fc.constant('apply' as const), position }),
  fc.record({ op: fc.constant('follow' as const) }),
  fc.record({ op: fc.constant('look' as const) }),
);

describe('FeedGate', () => {
  it('is current exactly when the applied position has reached every announced one', () => {
    fc.assert(
      fc.property(fc.boolean(), fc.array(step, { maxLength: 40 }), (fromStart, steps) => {
        let applied = 0n;
        const gate = fromStart ? new FeedGate(() => applied) : new FeedGate();
        // The model: the highest announcement, and whether the gate reads an applied position yet.
        let maxAnnounced = 0n;
        let following = fromStart;
        for (const s of steps) {
          if (s.op === 'announce') {
            gate.announced(s.position);
            if (s.position > maxAnnounced) maxAnnounced = s.position;
          } else if (s.op === 'apply') applied = s.position;
          else if (s.op === 'follow') {
            gate.follow(() => applied);
            following = true;
          } else expect(gate.current).toBe(!following || applied >= maxAnnounced);
        }
      }),
      runs,
    );
  });
});
