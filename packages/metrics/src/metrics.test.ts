// The shared registry's helpers: route families, scrape-time gauges, cache stats, and the token check.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { counter, gaugeFrom, metricsEndpoint, registerCacheStats, registry, requestFamily } from './index';

describe('metrics helpers', () => {
  it('maps paths to bounded route families', () => {
    expect(requestFamily('/graphql')).toBe('graphql');
    expect(requestFamily('/app/v1/organizations/o/projects/p/content/1')).toBe('app');
    expect(requestFamily('/api/v1/organizations/o/projects/p/content/events')).toBe('events');
    expect(requestFamily('/cdn/o/p/assets/a/x.png')).toBe('cdn');
    expect(requestFamily('/health')).toBe('other');
  });

  it('gives the same counter for the same name and reads gauges and caches at scrape time', async () => {
    counter('t_requests_total', 'test', ['kind']).inc({ kind: 'a' });
    counter('t_requests_total', 'test', ['kind']).inc({ kind: 'a' });
    let depth = 3;
    gaugeFrom('t_depth', 'test', () => depth);
    gaugeFrom('t_broken', 'test', async () => {
      throw new Error('database away');
    });
    let hits = 5;
    registerCacheStats('reads', () => ({ hits, misses: 2, size: 7 }));
    let text = await registry.metrics();
    expect(text).toMatch(/t_requests_total\{kind="a"\} 2/);
    expect(text).toMatch(/t_depth 3/);
    expect(text).toMatch(/cp_cache_hits_total\{cache="reads"\} 5/);
    expect(text).toMatch(/cp_cache_misses_total\{cache="reads"\} 2/);
    expect(text).toMatch(/cp_cache_entries\{cache="reads"\} 7/);
    depth = 4;
    hits = 9;
    text = await registry.metrics();
    expect(text).toMatch(/t_depth 4/);
    expect(text).toMatch(/cp_cache_hits_total\{cache="reads"\} 9/);
  });

  it('answers 401 without the token and passes through when no token is configured', async () => {
    const guarded = metricsEndpoint({ token: 'sixteen-chars-token' });
    const open = metricsEndpoint({});
    const server = createServer((req, res) => {
      const handler = req.url === '/guarded' ? guarded : open;
      void handler(req, res, () => ((res.statusCode = 404), res.end()));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    expect((await fetch(`${base}/guarded`)).status).toBe(401);
    expect((await fetch(`${base}/guarded`, { headers: { authorization: 'Bearer sixteen-chars-token' } })).status).toBe(
      200,
    );
    expect((await fetch(`${base}/open`)).status).toBe(404);
    server.close();
  });
});
