// The principal cache: what an access event drops, and no stale answer stored after one (fast-check); FeedCache's own
// rule is tested in packages/config/src/feed-cache.test.ts.
import type { ApiKeyPrincipal } from '@cp/principal';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ACCESS_RESOURCE_TYPES, PrincipalCache, type AccessChange } from './principal-cache';

const runs = { seed: Number(process.env.FC_SEED ?? 20261125), numRuns: Number(process.env.FC_RUNS ?? 200) };
const key = (keyId: string, organizationId: string): ApiKeyPrincipal => ({
  kind: 'apiKey',
  keyId,
  organizationId,
  projectId: 'p',
  scope: 'published',
});
const user = { tokensValidAfter: 0, permissions: {} };

const change: fc.Arbitrary<AccessChange> = fc.record({
  resourceType: fc.constantFrom(...ACCESS_RESOURCE_TYPES, 'content', 'assets'),
  resourceId: fc.constantFrom('k1', 'k2', 'u1', 'u2'),
  organizationId: fc.constantFrom('o1', 'o2'),
});

describe('PrincipalCache', () => {
  it('drops every entry an access change can affect; other changes drop nothing', async () => {
    await fc.assert(
      fc.asyncProperty(change, async (c) => {
        const cache = new PrincipalCache(60_000);
        for (const [id, org] of [
          ['k1', 'o1'],
          ['k2', 'o2'],
        ])
          await cache.loadKey(`hash-${id}`, async () => key(id, org));
        for (const [id, org] of [
          ['u1', 'o1'],
          ['u2', 'o2'],
        ])
          await cache.loadUser(org, id, async () => user);
        cache.invalidate(c);
        for (const [id, org] of [
          ['k1', 'o1'],
          ['k2', 'o2'],
        ]) {
          const affected =
            org === c.organizationId &&
            ((c.resourceType === 'api-keys' && c.resourceId === id) ||
              ['projects', 'organizations'].includes(c.resourceType));
          if (affected) expect(cache.getKey(`hash-${id}`)).toBeUndefined();
          if (!ACCESS_RESOURCE_TYPES.has(c.resourceType)) expect(cache.getKey(`hash-${id}`)).toBeDefined();
        }
        for (const [id, org] of [
          ['u1', 'o1'],
          ['u2', 'o2'],
        ]) {
          const affected =
            org === c.organizationId &&
            ((c.resourceType === 'users' && c.resourceId === id) ||
              ['roles', 'projects', 'organizations'].includes(c.resourceType));
          if (affected) expect(cache.getUser(org, id)).toBeUndefined();
          if (!ACCESS_RESOURCE_TYPES.has(c.resourceType)) expect(cache.getUser(org, id)).toBeDefined();
        }
      }),
      runs,
    );
  });

  it('never stores what a lookup read before an access change', async () => {
    await fc.assert(
      fc.asyncProperty(change, async (c) => {
        const cache = new PrincipalCache(60_000);
        let finish!: () => void;
        const read = new Promise<void>((resolve) => (finish = resolve));
        const loads = Promise.all([
          cache.loadKey('hash', () => read.then(() => key('k1', 'o1'))),
          cache.loadUser('o1', 'u1', () => read.then(() => user)),
        ]);
        cache.invalidate(c);
        finish();
        await loads;
        // A change that can drop entries of the kind keeps the read out, whichever entry it names: keys by key,
        // project and organization changes; users by user, role, project and organization changes.
        const dropsKeys = ['api-keys', 'projects', 'organizations'].includes(c.resourceType);
        const dropsUsers = ['users', 'roles', 'projects', 'organizations'].includes(c.resourceType);
        expect(cache.getKey('hash') === undefined).toBe(dropsKeys);
        expect(cache.getUser('o1', 'u1') === undefined).toBe(dropsUsers);
      }),
      runs,
    );
  });

  it('stores nothing with a zero TTL (hosts that get no access events)', async () => {
    const cache = new PrincipalCache(0);
    await cache.loadKey('hash', async () => key('k1', 'o1'));
    await cache.loadUser('o1', 'u1', async () => user);
    expect(cache.getKey('hash')).toBeUndefined();
    expect(cache.getUser('o1', 'u1')).toBeUndefined();
  });

  it('answers nothing and stores nothing, keys or users, while announced events are not applied yet', async () => {
    const cache = new PrincipalCache(60_000);
    let applied = 0n;
    cache.follow(() => applied);
    await cache.loadKey('hash-k1', async () => key('k1', 'o1'));
    await cache.loadUser('o1', 'u1', async () => user);
    cache.announced(1n);
    await cache.loadKey('hash-k2', async () => key('k2', 'o1'));
    await cache.loadUser('o1', 'u2', async () => user);
    const answers = () =>
      [cache.getKey('hash-k1'), cache.getUser('o1', 'u1'), cache.getKey('hash-k2'), cache.getUser('o1', 'u2')].map(
        (entry) => entry !== undefined,
      );
    expect(answers()).toEqual([false, false, false, false]);
    applied = 1n;
    expect(answers()).toEqual([true, true, false, false]);
  });
});
