// Per-account sign-in limit: failed attempts per email, counted across every client address.
import { RateLimitedError } from '@cp/errors';
import { createHash } from 'node:crypto';
import { RateLimiterMemory, type RateLimiterAbstract } from 'rate-limiter-flexible';

export interface SignInThrottle {
  /** Refuses (429) when the account has used up its failed attempts; correct passwords are refused too until then. */
  assertAllowed(email: string): Promise<void>;
  failed(email: string): Promise<void>;
  succeeded(email: string): Promise<void>;
}

/**
 * Backed by any rate-limiter-flexible store: the gateway passes one in the shared store (Redis or PostgreSQL) so
 * every replica counts one budget. The key is a hash of the normalised email: no address in the counters table.
 * Locking an account this way lets anyone delay its owner's sign-in for one window; that is the price of stopping
 * password guessing spread over many addresses, and the window is short and configurable.
 */
export function limiterSignInThrottle(limiter: RateLimiterAbstract): SignInThrottle {
  const key = (email: string) => `email:${createHash('sha256').update(email.trim().toLowerCase()).digest('base64url')}`;
  return {
    async assertAllowed(email) {
      const state = await limiter.get(key(email));
      if (state && state.consumedPoints >= limiter.points)
        throw new RateLimitedError(Math.max(1, Math.ceil(state.msBeforeNext / 1000)));
    },
    async failed(email) {
      // A rejection only says the budget is spent, which `assertAllowed` reports on the next attempt.
      await limiter.penalty(key(email), 1).catch(() => undefined);
    },
    async succeeded(email) {
      await limiter.delete(key(email)).catch(() => undefined);
    },
  };
}

/** One process's own count: what a standalone access service uses until the gateway provides the shared store. */
export function memorySignInThrottle(failures: number, windowSeconds: number): SignInThrottle {
  return limiterSignInThrottle(
    new RateLimiterMemory({ keyPrefix: 'rl_signin', points: failures, duration: windowSeconds }),
  );
}
