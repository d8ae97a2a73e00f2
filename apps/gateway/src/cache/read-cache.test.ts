// The cache's freshness rules without HTTP: stale fills refused, project drops, standing aside while behind, byte bound.
import { describe, expect, it } from 'vitest';
import { ReadCache, type CachedResponse } from './read-cache';

const response = (text: string): CachedResponse => ({
  contentType: 'application/json',
  body: Buffer.from(text),
  etag: '"x"',
  surrogateKeys: 'cp-project-p',
});

describe('ReadCache', () => {
  it('refuses a fill that started before an event of its project, keeps one of another project', () => {
    const applied = 0n;
    const cache = new ReadCache({ maxBytes: 1 << 20, appliedPosition: () => applied });
    const before = cache.ticket('p');
    const other = cache.ticket('q');
    cache.invalidateProject('p');
    expect(cache.store(before, 'k', response('old'))).toBe(false);
    expect(cache.get('k')).toBeUndefined();
    expect(cache.store(other, 'k2', response('q'))).toBe(true);
    expect(cache.store(cache.ticket('p'), 'k', response('new'))).toBe(true);
    expect(cache.get('k')?.body.toString()).toBe('new');
    expect(cache.stats()).toMatchObject({ staleFills: 1, entries: 2, hits: 1, misses: 1 });
  });

  it('drops every entry of a project on its event, and everything on an organization-level event', () => {
    const cache = new ReadCache({ maxBytes: 1 << 20, appliedPosition: () => 0n });
    cache.store(cache.ticket('p'), 'p1', response('a'));
    cache.store(cache.ticket('p'), 'p2', response('b'));
    cache.store(cache.ticket('q'), 'q1', response('c'));
    cache.invalidateProject('p');
    expect([cache.get('p1'), cache.get('p2')]).toEqual([undefined, undefined]);
    expect(cache.get('q1')).toBeDefined();
    const inFlight = cache.ticket('q');
    cache.invalidateAll();
    expect(cache.get('q1')).toBeUndefined();
    expect(cache.store(inFlight, 'q1', response('c'))).toBe(false);
    expect(cache.stats()).toMatchObject({ entries: 0, bytes: 0 });
  });

  it('stands aside between an announcement and the application of its events', () => {
    let applied = 5n;
    const cache = new ReadCache({ maxBytes: 1 << 20, appliedPosition: () => applied });
    cache.store(cache.ticket('p'), 'k', response('a'));
    const ticket = cache.ticket('p');
    cache.announced(7n);
    expect(cache.get('k')).toBeUndefined();
    expect(cache.store(ticket, 'k2', response('b'))).toBe(false);
    applied = 7n;
    expect(cache.get('k')).toBeDefined();
    expect(cache.stats().bypasses).toBe(1);
  });

  it('stays within its byte budget, evicting the least recently used', () => {
    const cache = new ReadCache({ maxBytes: 4096, appliedPosition: () => 0n });
    for (let i = 0; i < 10; i++) cache.store(cache.ticket('p'), `k${i}`, response('x'.repeat(1000)));
    const stats = cache.stats();
    expect(stats.bytes).toBeLessThanOrEqual(4096);
    expect(stats.evictions).toBeGreaterThan(0);
    expect(cache.get('k9')).toBeDefined();
    expect(cache.get('k0')).toBeUndefined();
    expect(cache.store(cache.ticket('p'), 'huge', response('x'.repeat(10_000)))).toBe(false);
  });
});
