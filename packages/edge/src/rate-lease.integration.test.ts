// Leased budgets on a real shared store: two "replicas" (two clients, two leasing budgets) on one Redis.
import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import { afterAll, describe, expect, it } from 'vitest';
import { leasedBudget } from './rate-lease';

const clients: Redis[] = [];
afterAll(() => clients.forEach((c) => c.disconnect()));

/** A replica's view of one shared window, counting the store calls it makes. */
function replica(keyPrefix: string, points: number) {
  const client = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: 1 });
  clients.push(client);
  const limiter = new RateLimiterRedis({ storeClient: client, keyPrefix, points, duration: 60 });
  const calls = { count: 0 };
  const consume = limiter.consume.bind(limiter);
  limiter.consume = (key, n) => (calls.count++, consume(key, n));
  return { budget: leasedBudget(limiter), calls };
}

describe('leased rate-limit budgets on a shared Redis', () => {
  it('never admits more than the limit across two replicas, refuses at most 2 % early, with ~1 store call per 1 %', async () => {
    const prefix = `lease_${randomBytes(4).toString('hex')}`;
    const [a, b] = [replica(prefix, 1000), replica(prefix, 1000)];
    const results = await Promise.all(Array.from({ length: 1500 }, (_, i) => (i % 2 ? a : b).budget.take('key:1')));
    const admitted = results.filter((r) => !r.refused).length;
    expect(admitted).toBeLessThanOrEqual(1000);
    expect(admitted).toBeGreaterThanOrEqual(980);
    // 1,500 requests: leases of 10 points plus single points near the end, and refusals answered locally.
    expect(a.calls.count + b.calls.count).toBeLessThan(300);
    const refusal = results.find((r) => r.refused)!;
    expect(refusal.res.msBeforeNext).toBeGreaterThan(0);
  });

  it('takes single points for small budgets (exact, like the store alone)', async () => {
    const prefix = `lease_${randomBytes(4).toString('hex')}`;
    const a = replica(prefix, 50);
    const results = [];
    for (let i = 0; i < 52; i++) results.push(await a.budget.take('key:2'));
    expect(results.filter((r) => !r.refused)).toHaveLength(50);
    expect(results.map((r) => r.res.remainingPoints).slice(0, 3)).toEqual([49, 48, 47]);
    expect(a.calls.count).toBe(52);
  });
});
