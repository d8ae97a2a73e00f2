// Differential property: a TokenService that remembers verified tokens answers as a fresh one (no memory) at any time.
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TokenService } from './tokens';

const RUNS = Number(process.env.FC_RUNS ?? 50);
const SEED = Number(process.env.FC_SEED ?? 20261125);
const secret = new TextEncoder().encode('tokens-test-secret-tokens-test-secret-0');
const other = new TextEncoder().encode('tokens-test-other-secret-tokens-test-00');
const START = Date.UTC(2026, 10, 25, 12, 0, 0, 0);

/** The outcome of a verification as comparable data: the claims, or the refusal's code. */
async function outcome(service: TokenService, token: string) {
  try {
    return { claims: await service.verify(token) };
  } catch (err) {
    return { refused: (err as { code?: string }).code };
  }
}

describe('TokenService.verify remembers verified tokens', () => {
  afterEach(() => vi.useRealTimers());

  it('answers as an uncached verification at every moment, expiry included (property)', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            ttlSeconds: fc.integer({ min: 1, max: 4 }),
            projectId: fc.option(fc.constant('p1'), { nil: undefined }),
            forged: fc.boolean(),
            issuedAtOffsetMs: fc.integer({ min: 0, max: 999 }),
          }),
          { minLength: 1, maxLength: 3 },
        ),
        // Clock moves (ms) between verifications, around whole seconds where `exp` bites.
        fc.array(fc.tuple(fc.nat(2), fc.integer({ min: 0, max: 1500 })), { minLength: 1, maxLength: 20 }),
        async (specs, steps) => {
          vi.setSystemTime(START);
          const cached = new TokenService(secret);
          const tokens: string[] = [];
          for (const spec of specs) {
            vi.setSystemTime(START + spec.issuedAtOffsetMs);
            const signer = spec.forged ? new TokenService(other) : cached;
            const { token } = await signer.issue({ userId: 'u1', organizationId: 'o1', ...spec });
            tokens.push(token);
          }
          let now = START;
          for (const [which, advance] of steps) {
            vi.setSystemTime((now += advance));
            const token = tokens[which % tokens.length];
            const [got, expected] = [await outcome(cached, token), await outcome(new TokenService(secret), token)];
            expect(got).toEqual(expected);
          }
        },
      ),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it('refuses a remembered token from the millisecond it expires', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(START + 400);
    const service = new TokenService(secret);
    const { token, expiresAt } = await service.issue({ userId: 'u1', organizationId: 'o1', ttlSeconds: 2 });
    expect((await service.verify(token)).userId).toBe('u1');
    vi.setSystemTime(expiresAt.getTime() - 1);
    expect((await service.verify(token)).userId).toBe('u1');
    vi.setSystemTime(expiresAt.getTime());
    await expect(service.verify(token)).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  });
});
