// The principal cache: what an access event drops, and no stale answer stored after an invalidation (fast-check).
import type { ApiKeyPrincipal } from '@cp/graphql';
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
  it('drops every entry an access change can affect; other changes drop nothing', () => {
    fc.assert(
      fc.property(change, (c) => {
        const cache = new PrincipalCache(60_000);
        const ticket = cache.ticket();
        for (const [id, org] of [
          ['k1', 'o1'],
          ['k2', 'o2'],
        ])
          cache.setKey(ticket, `hash-${id}`, key(id, org));
        for (const [id, org] of [
          ['u1', 'o1'],
          ['u2', 'o2'],
        ])
          cache.setUser(ticket, org, id, user);
        expect(cache.invalidate(c)).toBe(ACCESS_RESOURCE_TYPES.has(c.resourceType));
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

  it('never stores what a lookup read before an invalidation', () => {
    fc.assert(
      fc.property(change, (c) => {
        const cache = new PrincipalCache(60_000);
        const ticket = cache.ticket();
        const access = cache.invalidate(c);
        cache.setKey(ticket, 'hash', key('k1', 'o1'));
        cache.setUser(ticket, 'o1', 'u1', user);
        expect(cache.getKey('hash') === undefined).toBe(access);
        expect(cache.getUser('o1', 'u1') === undefined).toBe(access);
      }),
      runs,
    );
  });

  it('stores nothing with a zero TTL (hosts that get no access events)', () => {
    const cache = new PrincipalCache(0);
    cache.setKey(cache.ticket(), 'hash', key('k1', 'o1'));
    expect(cache.enabled).toBe(false);
    expect(cache.getKey('hash')).toBeUndefined();
  });

  it('answers nothing and stores nothing while announced events are not applied yet', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.record({ op: fc.constant('announce' as const), by: fc.integer({ min: 0, max: 3 }) }),
            fc.record({ op: fc.constant('apply' as const), by: fc.integer({ min: 0, max: 3 }) }),
            fc.record({ op: fc.constant('set' as const), id: fc.constantFrom('k1', 'k2') }),
            fc.record({ op: fc.constant('get' as const), id: fc.constantFrom('k1', 'k2') }),
          ),
          { maxLength: 30 },
        ),
        (steps) => {
          const cache = new PrincipalCache(60_000);
          let announced = 0n;
          let applied = 0n;
          cache.follow(() => applied);
          const stored = new Set<string>(); // the model: what was set while nothing announced was unapplied
          for (const step of steps) {
            const current = applied >= announced;
            if (step.op === 'announce') cache.announced((announced += BigInt(step.by)));
            else if (step.op === 'apply')
              applied = applied + BigInt(step.by) > announced ? announced : applied + BigInt(step.by);
            else if (step.op === 'set') {
              cache.setKey(cache.ticket(), `hash-${step.id}`, key(step.id, 'o1'));
              if (current) stored.add(step.id);
            } else expect(cache.getKey(`hash-${step.id}`) !== undefined).toBe(current && stored.has(step.id));
          }
        },
      ),
      runs,
    );
  });
});
