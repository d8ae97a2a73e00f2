// Black-box: Prometheus metrics at /metrics (bearer METRICS_TOKEN) and on a loopback METRICS_PORT.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, PROJECT } from './support/client';
import { freePort, startService, type TestService } from './support/service';

const METRICS_TOKEN = 'metrics-token-0123456789';

/** The value of one sample line, e.g. `cp_sse_streams 1`, or undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(series + ' '));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('metrics', () => {
  let service: TestService;
  let api: Client;
  let metricsPort: number;

  beforeAll(async () => {
    metricsPort = await freePort();
    service = await startService({
      env: {
        METRICS_TOKEN,
        METRICS_PORT: String(metricsPort),
        RATE_LIMIT_ANONYMOUS_PER_MINUTE: '3',
        EMBEDDINGS: 'off',
      },
    });
    api = new Client(service.url);
  });
  afterAll(async () => {
    await service?.destroy();
  });

  const scrape = async () => {
    const res = await fetch(`${service.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return res.text();
  };

  it('refuses /metrics on the service port without the token', async () => {
    expect((await fetch(`${service.url}/metrics`)).status).toBe(401);
    expect(
      (await fetch(`${service.url}/metrics`, { headers: { authorization: 'Bearer wrong-token-0123456789' } })).status,
    ).toBe(401);
  });

  it('serves the same registry without a token on the loopback metrics port', async () => {
    const res = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(/process_cpu_user_seconds_total/);
  });

  it('counts requests by family, GraphQL operations by name and outcome, streams, pool, events and refusals', async () => {
    const token = await api.login();
    await api.graphql('query Probe { organizations { data { id } } }', undefined, { token });
    await api.graphql(
      'query Broken { contentType(organizationId: "default", projectId: "default", id: "nope") { id } }',
      undefined,
      { token },
    );
    await api.call('POST', `/app/v1${PROJECT}/tags`, { token, body: { name: 'metered' } });
    await api.call('GET', '/cdn/default/default/assets/none/x.txt');
    const sse = await fetch(`${service.url}/app/v1${PROJECT}/events`, {
      headers: { accept: 'text/event-stream', authorization: `Bearer ${token}` },
    });
    // Bad credentials spend the anonymous budget (3/min here): the fourth is refused.
    for (let i = 0; i < 5; i++) await api.call('GET', `/app/v1${PROJECT}/tags`, { token: 'bad' });

    expect(sse.status).toBe(200);
    const text = await scrape();
    expect(text).toMatch(
      /cp_http_request_duration_seconds_bucket\{le="[^"]+",family="graphql",method="POST",status="200"\}/,
    );
    expect(text).toMatch(/cp_http_request_duration_seconds_count\{family="app",method="POST",status="201"\} 1/);
    expect(text).toMatch(/cp_http_request_duration_seconds_count\{family="cdn",method="GET",status="404"\} 1/);
    expect(sample(text, 'cp_graphql_operations_total{operation="Probe",outcome="success"}')).toBe(1);
    expect(sample(text, 'cp_graphql_operations_total{operation="Broken",outcome="error"}')).toBe(1);
    expect(sample(text, 'cp_sse_streams')).toBe(1);
    expect(sample(text, 'cp_graphql_ws_connections')).toBe(0);
    expect(sample(text, 'cp_db_pool_connections{state="used"}')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'cp_events_newest_position')).toBeGreaterThan(0);
    expect(sample(text, 'cp_events_lag')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'cp_events_undispatched')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'cp_webhook_queue_depth')).toBe(0);
    expect(sample(text, 'cp_rate_limit_refusals_total{window="rl_anon"}')).toBeGreaterThanOrEqual(1);
    expect(text).toMatch(/nodejs_eventloop_lag_seconds/);
    expect(text).toMatch(/cp_cache_misses_total\{cache="reads"\} \d+/);
    await sse.body?.cancel();
  });
});
