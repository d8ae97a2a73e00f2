// FeedCache's rule: no answer stored after a drop raced its read, nothing answered or stored while the feed is behind.
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FeedCache } from './feed-cache';

const runs = { seed: Number(process.env.FC_SEED ?? 20261125), numRuns: Number(process.env.FC_RUNS ?? 200) };

/** A read the test finishes when it likes, so that drops and announcements can happen while it is in flight. */
function pendingRead<T>(value: T) {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  return { read: () => done.then(() => value), finish };
}

const keys = fc.constantFrom('o1/a', 'o1/b', 'o2/a');

describe('FeedCache', () => {
  afterEach(() => vi.useRealTimers());

  it('stores what a read returned unless a drop happened while it was in flight, whatever that drop picked', async () => {
    await fc.assert(
      fc.asyncProperty(
        keys,
        fc.option(fc.oneof(fc.record({ key: keys }), fc.record({ organization: fc.constantFrom('o1', 'o2') }))),
        async (key, drop) => {
          const cache = new FeedCache<string>(60_000, 100);
          const pending = pendingRead('v');
          const loaded = cache.load(key, pending.read);
          if (drop && 'key' in drop) cache.drop(drop.key);
          else if (drop) cache.dropWhere((id) => id.startsWith(`${drop.organization}/`));
          pending.finish();
          expect(await loaded).toBe('v');
          expect(cache.get(key)).toBe(drop ? undefined : 'v');
        },
      ),
      runs,
    );
  });

  it('answers nothing and stores nothing while announced events are not applied yet', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            fc.record({ op: fc.constant('announce' as const), by: fc.integer({ min: 0, max: 3 }) }),
            fc.record({ op: fc.constant('apply' as const), by: fc.integer({ min: 0, max: 3 }) }),
            fc.record({ op: fc.constant('load' as const), key: keys, announceDuringRead: fc.boolean() }),
            fc.record({ op: fc.constant('get' as const), key: keys }),
          ),
          { maxLength: 30 },
        ),
        async (steps) => {
          const cache = new FeedCache<string>(60_000, 100);
          let announced = 0n;
          let applied = 0n;
          cache.follow(() => applied);
          const stored = new Set<string>(); // the model: what was loaded while nothing announced was unapplied
          for (const step of steps) {
            if (step.op === 'announce') cache.announced((announced += BigInt(step.by)));
            else if (step.op === 'apply')
              applied = applied + BigInt(step.by) > announced ? announced : applied + BigInt(step.by);
            else if (step.op === 'load') {
              const pending = pendingRead(step.key);
              const loaded = cache.load(step.key, pending.read);
              // An announcement that arrives while the read is in flight keeps its answer out of the cache too.
              if (step.announceDuringRead) cache.announced((announced += 1n));
              pending.finish();
              await loaded;
              if (applied >= announced) stored.add(step.key);
            } else
              expect(cache.get(step.key)).toBe(applied >= announced && stored.has(step.key) ? step.key : undefined);
          }
        },
      ),
      runs,
    );
  });

  it('counts whatever was announced as applied until a host calls follow', async () => {
    const cache = new FeedCache<string>(60_000, 100);
    cache.announced(5n);
    await cache.load('k', async () => 'v');
    expect(cache.get('k')).toBe('v');
    cache.follow(() => 4n);
    expect(cache.get('k')).toBeUndefined();
  });

  it('drops an entry once its TTL has passed, and stores nothing with a zero TTL', async () => {
    vi.useFakeTimers();
    const cache = new FeedCache<string>(1000, 100);
    await cache.load('k', async () => 'v');
    vi.advanceTimersByTime(999);
    expect(cache.get('k')).toBe('v');
    vi.advanceTimersByTime(1);
    expect(cache.get('k')).toBeUndefined();
    const off = new FeedCache<string>(0, 100);
    await off.load('k', async () => 'v');
    expect(off.get('k')).toBeUndefined();
  });

  it('stores no undefined answer, drops exactly what it is told to, and starts over when full', async () => {
    const cache = new FeedCache<string>(60_000, 3);
    expect(await cache.load('missing', async () => undefined)).toBeUndefined();
    for (const key of ['o1/a', 'o1/b', 'o2/a']) await cache.load(key, async () => key);
    cache.drop('o1/a');
    expect([cache.get('o1/a'), cache.get('o1/b'), cache.get('o2/a')]).toEqual([undefined, 'o1/b', 'o2/a']);
    cache.dropWhere((_, value) => value.startsWith('o1/'));
    expect([cache.get('o1/b'), cache.get('o2/a')]).toEqual([undefined, 'o2/a']);
    await cache.load('o3/a', async () => 'o3/a');
    await cache.load('o3/b', async () => 'o3/b');
    // Full at three entries: the next store starts over rather than grow.
    expect([cache.get('o2/a'), cache.get('o3/a'), cache.get('o3/b')]).toEqual(['o2/a', 'o3/a', 'o3/b']);
    await cache.load('o4/a', async () => 'o4/a');
    expect([cache.get('o2/a'), cache.get('o4/a')]).toEqual([undefined, 'o4/a']);
  });
});
