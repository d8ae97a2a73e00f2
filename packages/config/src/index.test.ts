import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, loadSubgraphSecret } from './index';

describe('loadConfig', () => {
  it('applies the defaults', () => {
    const c = loadConfig({});
    expect(c.http).toMatchObject({ port: 4000, host: '127.0.0.1', publicUrl: 'http://127.0.0.1:4000' });
    expect(c.http.cdnUrl).toBe('http://127.0.0.1:4000/cdn');
    expect(c.database).toMatchObject({
      url: undefined,
      dataDir: './data',
      probe: { intervalMs: 1000, timeoutMs: 2000 },
    });
    expect(c.rateLimit).toEqual({
      perMinute: 600,
      perHour: 30000,
      anonymousPerMinute: 30,
      signInFailures: 10,
      signInWindowSeconds: 900,
    });
  });

  it('keeps asset bytes on local disk unless STORAGE_URL names a bucket, with its prefix and S3 settings', () => {
    expect(loadConfig({}).storage).toBeUndefined();
    expect(loadConfig({ STORAGE_URL: 's3://assets' }).storage).toEqual({
      bucket: 'assets',
      prefix: '',
      endpoint: undefined,
      region: 'us-east-1',
      forcePathStyle: false,
    });
    const minio = loadConfig({
      STORAGE_URL: 's3://my.bucket/a/b/',
      S3_ENDPOINT: 'http://minio:9000',
      S3_REGION: 'auto',
      S3_FORCE_PATH_STYLE: 'true',
    });
    expect(minio.storage).toEqual({
      bucket: 'my.bucket',
      prefix: 'a/b/',
      endpoint: 'http://minio:9000',
      region: 'auto',
      forcePathStyle: true,
    });
    for (const url of ['http://bucket', 's3://', 's3://B', 's3:///prefix'])
      expect(() => loadConfig({ STORAGE_URL: url }), url).toThrow(ConfigError);
  });

  it('bounds slow clients and stalled brokers by default, and takes other bounds', () => {
    const c = loadConfig({});
    expect(c.http).toMatchObject({ headersTimeoutMs: 5000, requestTimeoutMs: 120_000 });
    expect(c.brokers).toEqual({ timeoutMs: 1000, publishWaitMs: 250, probeIntervalMs: 1000 });
    const set = loadConfig({
      HTTP_HEADERS_TIMEOUT_MS: '2000',
      HTTP_REQUEST_TIMEOUT_MS: '2000',
      BROKER_TIMEOUT_MS: '300',
      BROKER_PUBLISH_WAIT_MS: '100',
      BROKER_PROBE_INTERVAL_MS: '500',
    });
    expect(set.http).toMatchObject({ headersTimeoutMs: 2000, requestTimeoutMs: 2000 });
    expect(set.brokers).toEqual({ timeoutMs: 300, publishWaitMs: 100, probeIntervalMs: 500 });
    // Node refuses a request deadline shorter than the headers'.
    expect(() => loadConfig({ HTTP_HEADERS_TIMEOUT_MS: '10000', HTTP_REQUEST_TIMEOUT_MS: '5000' })).toThrow(
      /HTTP_REQUEST_TIMEOUT_MS: must be at least HTTP_HEADERS_TIMEOUT_MS/,
    );
    expect(() => loadConfig({ BROKER_TIMEOUT_MS: '0' })).toThrow(/BROKER_TIMEOUT_MS/);
  });

  it('parses SUBGRAPH_URLS and treats empty strings as unset', () => {
    const c = loadConfig({ SUBGRAPH_URLS: 'content=http://127.0.0.1:4101/graphql', DATABASE_URL: '' });
    expect(c.subgraphUrls).toEqual({ content: 'http://127.0.0.1:4101/graphql' });
    expect(c.database.url).toBeUndefined();
  });

  it('turns the GraphQL IDE on by default, off in production unless GRAPHQL_IDE=on', () => {
    expect(loadConfig({}).graphqlIde).toBe(true);
    expect(loadConfig({ NODE_ENV: 'production' }).graphqlIde).toBe(false);
    expect(loadConfig({ NODE_ENV: 'production', GRAPHQL_IDE: 'on' }).graphqlIde).toBe(true);
    expect(loadConfig({ GRAPHQL_IDE: 'off' }).graphqlIde).toBe(false);
  });

  it('gives SIGTERM a 5 s grace window before the 10 s drain; 0 turns the window off, a negative one is refused', () => {
    expect(loadConfig({}).shutdown).toEqual({ graceMs: 5000, timeoutMs: 10_000 });
    expect(loadConfig({ SHUTDOWN_GRACE_MS: '0', SHUTDOWN_TIMEOUT_MS: '3000' }).shutdown).toEqual({
      graceMs: 0,
      timeoutMs: 3000,
    });
    expect(loadConfig({ SHUTDOWN_GRACE_MS: '' }).shutdown.graceMs).toBe(5000);
    expect(() => loadConfig({ SHUTDOWN_GRACE_MS: '-1' })).toThrow(/SHUTDOWN_GRACE_MS/);
  });

  it('enables tracing only with OTEL_EXPORTER_OTLP_ENDPOINT, a URL', () => {
    expect(loadConfig({}).tracing).toEqual({ endpoint: undefined, serviceName: undefined });
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: '' }).tracing.endpoint).toBeUndefined();
    expect(
      loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/', OTEL_SERVICE_NAME: 'cms' }).tracing,
    ).toEqual({
      endpoint: 'http://collector:4318',
      serviceName: 'cms',
    });
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' })).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT/);
  });

  it('bounds image transformations per process: at most 3 at once by default, 64 waiting; queue 0 allowed', () => {
    const { concurrency, queue } = loadConfig({}).images;
    expect(concurrency).toBeGreaterThanOrEqual(1);
    expect(concurrency).toBeLessThanOrEqual(3);
    expect(queue).toBe(64);
    const set = loadConfig({ IMAGE_TRANSFORM_CONCURRENCY: '8', IMAGE_TRANSFORM_QUEUE: '0' });
    expect(set.images).toEqual({ concurrency: 8, queue: 0 });
    expect(() => loadConfig({ IMAGE_TRANSFORM_CONCURRENCY: '0' })).toThrow(/IMAGE_TRANSFORM_CONCURRENCY/);
    expect(() => loadConfig({ IMAGE_TRANSFORM_QUEUE: '-1' })).toThrow(/IMAGE_TRANSFORM_QUEUE/);
  });

  it('reports every invalid variable at once', () => {
    try {
      loadConfig({ PORT: 'abc', JWT_SECRET: 'short', SUBGRAPH_URLS: 'nope=http://x' });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      const issues = (e as ConfigError).issues.join('\n');
      expect(issues).toMatch(/PORT/);
      expect(issues).toMatch(/JWT_SECRET/);
      expect(issues).toMatch(/SUBGRAPH_URLS/);
    }
  });

  it('takes SUBGRAPH_SECRET of at least 32 characters, different from JWT_SECRET, and requires it only where asked', () => {
    const a = 'a'.repeat(32);
    const b = 'b'.repeat(32);
    expect(() => loadConfig({ SUBGRAPH_SECRET: 'short' })).toThrow(/SUBGRAPH_SECRET/);
    expect(() => loadConfig({ SUBGRAPH_SECRET: a, JWT_SECRET: a })).toThrow(
      /SUBGRAPH_SECRET: must differ from JWT_SECRET/,
    );
    expect(loadSubgraphSecret(loadConfig({ SUBGRAPH_SECRET: a, JWT_SECRET: b }), 'here')).toEqual(
      new TextEncoder().encode(a),
    );
    expect(() => loadSubgraphSecret(loadConfig({ SUBGRAPH_SECRET: '' }), 'to run a subgraph service')).toThrow(
      /SUBGRAPH_SECRET .* is required to run a subgraph service/,
    );
  });

  it('refuses REDIS_URL and NATS_URL together: one event broker, never one silently unused', () => {
    expect(() => loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379', NATS_URL: 'nats://127.0.0.1:4222' })).toThrow(
      /NATS_URL: set REDIS_URL or NATS_URL, not both/,
    );
    expect(loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379' }).redisUrl).toBe('redis://127.0.0.1:6379');
    expect(loadConfig({ NATS_URL: 'nats://127.0.0.1:4222', REDIS_URL: '' }).natsUrl).toBe('nats://127.0.0.1:4222');
  });
});
