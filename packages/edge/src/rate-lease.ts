// Shared rate-limit counters without a store round trip per request: each replica leases a slice of a budget.
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

/** One request's answer from a budget window. */
export interface Take {
  res: RateLimiterRes;
  refused: boolean;
}

/** A window of a budget (per minute, per hour…) as the rate-limit middleware uses it. */
export interface Budget {
  readonly keyPrefix: string;
  readonly points: number;
  /** From a lease this replica holds: at once, without a promise (every request of a busy caller would pay for one). */
  take(key: string): Take | Promise<Take>;
}

/** Straight through to the store: every request is one store call (memory, or a budget too small to lease). */
export function directBudget(limiter: RateLimiterAbstract): Budget {
  return {
    keyPrefix: limiter.keyPrefix,
    points: limiter.points,
    async take(key) {
      try {
        return { res: await limiter.consume(key), refused: false };
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) return { res: rejection, refused: true };
        throw rejection;
      }
    },
  };
}

interface Lease {
  /** Points taken from the shared store and not yet spent here. */
  left: number;
  /** What the store said was left for everyone after the last lease. */
  sharedRemaining: number;
  resetAt: number;
  /** Set when the store refused: answered locally until the window resets. */
  refused?: boolean;
}

/** Share of the budget one replica leases at a time: N replicas may refuse up to N × 1 % early, never admit more. */
const LEASE_SHARE = 0.01;

/**
 * A shared store (PostgreSQL or Redis) spent in leases of 1 % of the budget: a replica takes that many points in
 * one store call and spends them locally, so a high-volume caller costs one round trip per 1 % of its budget, not one
 * per request. Points are counted in the store when leased, so replicas together never admit more than the limit;
 * unspent leases at the window's end are what can make a budget refuse early (≤ 1 % per replica). Near the limit
 * (less than four leases left) it takes single points, and a refusal is remembered until the window resets. Budgets
 * under 100 points always take single points: they behave exactly like the store alone.
 */
export function leasedBudget(limiter: RateLimiterAbstract): Budget {
  const chunk = Math.floor(limiter.points * LEASE_SHARE);
  if (chunk <= 1) return directBudget(limiter);
  const leases = new Map<string, Lease>();
  const refills = new Map<string, Promise<void>>();

  const refill = async (key: string) => {
    const last = leases.get(key);
    const size = last && !last.refused && last.sharedRemaining < 4 * chunk ? 1 : chunk;
    const { res, refused } = await takePoints(limiter, key, size);
    const lease: Lease = {
      left: refused ? 0 : size,
      sharedRemaining: Math.max(0, res.remainingPoints),
      resetAt: Date.now() + res.msBeforeNext,
      refused,
    };
    leases.set(key, lease);
    // Expired leases go when their window ends; a quiet key leaves nothing behind.
    setTimeout(() => leases.get(key) === lease && leases.delete(key), res.msBeforeNext + 1000).unref();
  };

  /** The lease's answer while it holds points (or remembers a refusal) in the current window; else undefined. */
  const fromLease = (key: string): Take | undefined => {
    const lease = leases.get(key);
    const now = Date.now();
    if (!lease || lease.resetAt <= now) return undefined;
    const msBeforeNext = lease.resetAt - now;
    if (lease.refused) return { res: new RateLimiterRes(0, msBeforeNext, limiter.points + 1), refused: true };
    if (lease.left <= 0) return undefined;
    lease.left--;
    const remaining = lease.sharedRemaining + lease.left;
    return { res: new RateLimiterRes(remaining, msBeforeNext, limiter.points - remaining), refused: false };
  };

  const refilled = async (key: string): Promise<Take> => {
    for (;;) {
      // One refill per key at a time; concurrent requests wait for it and then spend from it.
      let pending = refills.get(key);
      if (!pending) {
        pending = refill(key).finally(() => refills.delete(key));
        refills.set(key, pending);
      }
      await pending;
      const taken = fromLease(key);
      if (taken) return taken;
    }
  };

  const take = (key: string): Take | Promise<Take> => fromLease(key) ?? refilled(key);

  return { keyPrefix: limiter.keyPrefix, points: limiter.points, take };
}

async function takePoints(limiter: RateLimiterAbstract, key: string, points: number): Promise<Take> {
  try {
    return { res: await limiter.consume(key, points), refused: false };
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) return { res: rejection, refused: true };
    throw rejection;
  }
}
