// Black-box: PostgreSQL stops and starts under the standalone deployment (four subgraph services behind our gateway,
// `SUBGRAPH_URLS`): every address answers a fast 503 UNAVAILABLE meanwhile, heals without a restart, loses no
// acknowledged write.
import { createGatewayRuntime } from '@graphql-hive/gateway-runtime';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, PROJECT, type HttpResult } from './support/client';
import { startNats, startPostgres, startRedis, type FaultServer } from './support/fault-servers';
import { ADMIN, type TestService } from './support/service';
import { startStandaloneStack, SUBGRAPHS, type StandaloneStack, type SubgraphName } from './support/standalone';

const app = `/app/v1${PROJECT}`;
/** Every refusal during the outage answers within this (the design bound is the 5 s connect timeout; slack for CI). */
const ANSWER_WITHIN_MS = 5000;
/** Once PostgreSQL is back, every process takes writes again within this. */
const HEALED_WITHIN_MS = 20_000;

const RUNS = Number(process.env.FC_RUNS ?? 5);
const SEED = Number(process.env.FC_SEED ?? 20261125);

const WRITES = ['gatewayRest', 'gatewayGraphql', 'hiveGraphql', 'serviceGraphql', 'serviceUpload'] as const;
type Write = (typeof WRITES)[number];

/** A request with its wall time; a reset connection or a hang fails the test here rather than as a status. */
async function timed(request: () => Promise<HttpResult>): Promise<HttpResult & { ms: number }> {
  const started = Date.now();
  const res = await request();
  const ms = Date.now() - started;
  if (res.status === 503) refusalMs.push(ms);
  return { ...res, ms };
}
/** Every 503's wall time, reported at the end (what the bound above leaves as slack). */
const refusalMs: number[] = [];

/** The error code of a REST envelope or of a GraphQL answer's first error. */
const codeOf = (res: HttpResult) => res.body?.error?.code ?? res.body?.errors?.[0]?.extensions?.code;

/**
 * `hive`: Hive Gateway's own answer, whose HTTP status is its policy (200 for `application/json`); the services' code
 * must come through it.
 */
function expectRefusal(what: string, res: HttpResult & { ms: number }, envelope: 'rest' | 'graphql' | 'hive') {
  const detail = `${what}: ${res.status} in ${res.ms} ms ${JSON.stringify(res.body)}`;
  expect(res.ms, detail).toBeLessThan(ANSWER_WITHIN_MS);
  if (envelope !== 'hive') {
    expect(res.status, detail).toBe(503);
    expect(res.headers.get('retry-after'), detail).toMatch(/^\d+$/);
  }
  if (envelope === 'rest') {
    expect(res.body, detail).toEqual({
      error: { code: 'UNAVAILABLE', message: expect.any(String), details: expect.anything() },
    });
  } else {
    expect(res.body.data ?? null, detail).toBeNull();
    expect(codeOf(res), detail).toBe('UNAVAILABLE');
  }
}

// The broker is Redis (also the rate-limit store), NATS, or PostgreSQL itself (LISTEN/NOTIFY) when neither is
// configured: then the outage takes the broker down too and its connection must heal as well.
describe.each(['redis', 'nats', 'postgres'] as const)(
  'PostgreSQL outage under standalone subgraph services (%s broker)',
  (broker) => {
    let pg: FaultServer;
    /** Redis or NATS, a process of the test's own. */
    let brokerServer: FaultServer | undefined;
    let stack: StandaloneStack;
    const direct = {} as Record<SubgraphName, Client>;
    let gateway: TestService;
    /** A third-party federation gateway in front of the same services, forwarding the client's credentials. */
    let hive: ReturnType<typeof createGatewayRuntime>;
    let api: Client;
    let token: string;
    let typeId: string;
    let key: string;
    /** Every write some address acknowledged with a 2xx: resource type and id. */
    const acknowledged: { kind: 'content' | 'assets'; id: string }[] = [];

    beforeAll(async () => {
      const startBroker = { redis: startRedis, nats: startNats, postgres: async () => undefined }[broker];
      [pg, brokerServer] = await Promise.all([startPostgres(), startBroker()]);
      const brokerEnv: Record<string, string> =
        broker === 'postgres' ? {} : { [broker === 'redis' ? 'REDIS_URL' : 'NATS_URL']: brokerServer!.url };
      stack = await startStandaloneStack({ databaseUrl: pg.url, env: { ...brokerEnv, EMBEDDINGS: 'off' } });
      for (const name of SUBGRAPHS) direct[name] = new Client(stack.service(name).url.replace(/\/graphql$/, ''));
      gateway = stack.gateway;
      api = new Client(gateway.url);
      hive = createGatewayRuntime({
        supergraph: stack.supergraph(),
        logging: false,
        maskedErrors: false,
        propagateHeaders: {
          fromClientToSubgraphs: ({ request }) => ({ authorization: request.headers.get('authorization') }),
        },
      });
      token = await api.login();
      typeId = (
        await api.call('POST', `${app}/content-types`, { token, body: { name: 'Page', schema: { type: 'object' } } })
      ).body.id;
      expect((await api.call('POST', `${app}/content-types/${typeId}/publish`, { token })).status).toBe(200);
      key = (await api.call('POST', `${app}/api-keys`, { token, body: { name: 'reader' } })).body.key;
      expect(key).toMatch(/^cpk_/);
    }, 180_000);

    afterAll(async () => {
      await hive?.dispose();
      const sorted = [...refusalMs].sort((a, b) => a - b);
      console.log(
        `${broker}: ${sorted.length} refusals, median ${sorted[sorted.length >> 1]} ms, slowest ${sorted.at(-1)} ms`,
      );
      refusalMs.length = 0;
      await stack?.stop();
      await pg?.destroy();
      await brokerServer?.destroy();
    });

    const createContent = `mutation($t: ID!, $n: String!) {
    createContent(organizationId: "default", projectId: "default", input: { typeId: $t, name: $n, content: {} }) { id }
  }`;

    /** The writes each address takes: REST and GraphQL at the gateway, GraphQL and an upload straight at a service. */
    const writes: Record<Write, (name: string) => Promise<HttpResult>> = {
      gatewayRest: (n: string) => api.call('POST', `${app}/content`, { token, body: { typeId, name: n, content: {} } }),
      gatewayGraphql: (n: string) => api.graphql(createContent, { t: typeId, n }, { token }),
      hiveGraphql: async (n: string) => {
        const res = await hive.fetch('http://hive.local/graphql', {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify({ query: createContent, variables: { t: typeId, n } }),
        });
        return { status: res.status, headers: res.headers, body: await res.json() };
      },
      serviceGraphql: (n: string) => direct.content.graphql(createContent, { t: typeId, n }, { token }),
      serviceUpload: async (n: string): Promise<HttpResult> => {
        const body = new FormData();
        body.append('file', new Blob([Buffer.from(n)], { type: 'text/plain' }), `${n}.txt`);
        const res = await fetch(`${direct.assets.baseUrl}${app}/assets`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}` },
          body,
        });
        const text = await res.text();
        return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
      },
    };
    /** Records an acknowledged write by the id its answer names. */
    function record(kind: 'content' | 'assets', res: HttpResult) {
      const id = res.body?.id ?? res.body?.data?.createContent?.id;
      if (res.status < 300 && id) acknowledged.push({ kind, id });
      return res;
    }

    const kindOf = (name: Write) => (name === 'serviceUpload' ? 'assets' : 'content');
    const envelopeOf = (name: Write) =>
      name === 'hiveGraphql' ? 'hive' : name.endsWith('Graphql') ? 'graphql' : 'rest';

    /** Retries a write until an address acknowledges it; meanwhile only fast 503 UNAVAILABLE answers. */
    async function writeUntilAcknowledged(name: Write, label: string) {
      const deadline = Date.now() + HEALED_WITHIN_MS;
      for (;;) {
        const res = await timed(() => writes[name](label));
        if (res.status < 300 && !res.body?.errors) return record(kindOf(name), res);
        expectRefusal(`${name} while healing`, res, envelopeOf(name));
        if (Date.now() > deadline) throw new Error(`${name} still refused ${HEALED_WITHIN_MS} ms after recovery`);
        await new Promise((r) => setTimeout(r, 250));
      }
    }

    /** Every process ready again, broker included (the PostgreSQL broker's LISTEN connection came back too), none restarted. */
    async function expectHealed() {
      const deadline = Date.now() + HEALED_WITHIN_MS;
      for (const client of [...SUBGRAPHS.map((n) => direct[n]), api]) {
        let ready = await client.call('GET', '/ready');
        while (ready.body?.status !== 'ready' && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 250));
          ready = await client.call('GET', '/ready');
        }
        expect([ready.status, ready.body], client.baseUrl).toEqual([200, { status: 'ready' }]);
      }
      const processes = [...SUBGRAPHS.map((n) => stack.service(n)), gateway];
      for (const s of processes) expect(s.child.exitCode).toBeNull();
      for (const s of processes) {
        expect(s.output()).not.toMatch(/"msg":"unexpected error"/);
        // Every line a JSON log line an operator's pipeline can parse (knex's own warnings included).
        expect(s.output()).not.toMatch(/^Connection Error/m);
      }
    }

    it('answers a fast 503 UNAVAILABLE at the gateway and at every service while PostgreSQL is down', async () => {
      for (const name of WRITES) {
        const res = record(kindOf(name), await writes[name](`before-${name}`));
        expect(res.status, `${name} ${JSON.stringify(res.body)}`).toBeLessThan(300);
        expect(res.body.errors, name).toBeUndefined();
      }
      expect(acknowledged).toHaveLength(WRITES.length);

      await pg.stop();
      try {
        expectRefusal('gateway GraphQL mutation', await timed(() => writes.gatewayGraphql('down')), 'graphql');
        expectRefusal('gateway REST write', await timed(() => writes.gatewayRest('down')), 'rest');
        expectRefusal(
          'gateway admin REST read',
          await timed(() => api.call('GET', `${app}/content?limit=5`, { token })),
          'rest',
        );
        expectRefusal('content service GraphQL', await timed(() => writes.serviceGraphql('down')), 'graphql');
        expectRefusal('Hive Gateway GraphQL mutation', await timed(() => writes.hiveGraphql('down')), 'hive');
        expectRefusal('assets service upload', await timed(() => writes.serviceUpload('down')), 'rest');
        // Credentials checked against the database at the service: an API key, a sign-in.
        expectRefusal(
          'content service GraphQL with an API key',
          await timed(() =>
            direct.content.graphql(
              '{ contents(organizationId: "default", projectId: "default") { data { id } } }',
              {},
              { apiKey: key },
            ),
          ),
          'graphql',
        );
        expectRefusal(
          'access service sign-in',
          await timed(() =>
            direct.access.graphql(
              'mutation($e: String!, $p: String!) { login(input: { email: $e, password: $p }) { token } }',
              { e: ADMIN.email, p: ADMIN.password },
            ),
          ),
          'graphql',
        );
        expectRefusal(
          'components service GraphQL',
          await timed(() =>
            direct.components.graphql(
              '{ components(organizationId: "default", projectId: "default") { data { id } } }',
              {},
              { token },
            ),
          ),
          'graphql',
        );
        expectRefusal(
          'gateway sign-in',
          await timed(() => api.call('POST', '/app/v1/auth/login', { body: ADMIN })),
          'rest',
        );
        for (const name of SUBGRAPHS) {
          const ready = await timed(() => direct[name].call('GET', '/ready'));
          expect(ready.ms, `${name} /ready`).toBeLessThan(ANSWER_WITHIN_MS);
          expect(ready.status, `${name} /ready`).toBe(503);
          expect(ready.body).toEqual({ status: 'degraded' });
          const health = await timed(() => direct[name].call('GET', '/health'));
          expect(health.ms, `${name} /health`).toBeLessThan(ANSWER_WITHIN_MS);
          expect([health.status, health.body.status], `${name} /health`).toEqual([503, 'degraded']);
        }
        expect((await api.call('GET', '/ready')).status).toBe(503);
      } finally {
        await pg.start();
      }

      // Healing: every address takes writes again, no process restarted.
      for (const name of WRITES) await writeUntilAcknowledged(name, `after-${name}`);
      await expectHealed();
    }, 60_000);

    it('property: under any sequence of outages, recoveries and writes, down is a fast 503 and up takes writes', async () => {
      const step = fc.oneof(fc.constant('flip' as const), fc.constantFrom(...WRITES));
      let run = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(step, { minLength: 3, maxLength: 7 }), async (steps) => {
          run++;
          let down = false;
          try {
            for (const [i, s] of steps.entries()) {
              if (s === 'flip') {
                await (down ? pg.start() : pg.stop());
                down = !down;
              } else if (down) {
                expectRefusal(`${s} while down`, await timed(() => writes[s](`p${run}-${i}`)), envelopeOf(s));
              } else {
                await writeUntilAcknowledged(s, `p${run}-${i}`);
              }
            }
          } finally {
            if (down) await pg.start();
          }
          await expectHealed();
        }),
        // Real processes: no shrinking (each step may take seconds); a failure prints its sequence and seed.
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
    }, 120_000);

    it.runIf(broker !== 'postgres')(
      `keeps taking writes everywhere while ${broker} is down (ready, degraded broker at 200), and heals`,
      async () => {
        await brokerServer!.stop();
        try {
          for (const name of WRITES) {
            const res = await timed(() => writes[name](`no-broker-${name}`));
            expect(res.ms, name).toBeLessThan(ANSWER_WITHIN_MS);
            expect(res.status, `${name} ${JSON.stringify(res.body)}`).toBeLessThan(300);
            record(kindOf(name), res);
          }
          // Redis holds the rate limits too (the in-memory limiters count meanwhile): /ready names it.
          const degraded = { status: 'degraded', broker: 'down', ...(broker === 'redis' && { redis: 'down' }) };
          for (const client of [...SUBGRAPHS.map((n) => direct[n]), api]) {
            const ready = await client.call('GET', '/ready');
            expect([ready.status, ready.body], client.baseUrl).toEqual([200, degraded]);
          }
        } finally {
          await brokerServer!.start();
        }
        await expectHealed();
      },
      60_000,
    );

    it('a crash of the content service mid-writes: fast answers meanwhile, healed once it is back, nothing acknowledged lost', async () => {
      const inFlight = Array.from({ length: 8 }, (_, i) => timed(() => writes.gatewayRest(`crash-${i}`)));
      await new Promise((r) => setTimeout(r, 20));
      await stack.service('content').stop('SIGKILL');
      const answers = [...(await Promise.all(inFlight)), await timed(() => writes.gatewayRest('crash-after'))];
      // Each write was either acknowledged (and so kept) or refused as unavailable: never a 500, a reset, a hang.
      for (const res of answers) {
        if (res.status >= 300) expectRefusal('write while the content service died', res, 'rest');
        else record('content', res);
      }
      await stack.restart('content');
      await writeUntilAcknowledged('gatewayRest', 'after-crash');
      await writeUntilAcknowledged('serviceGraphql', 'after-crash');
      await expectHealed();
    }, 60_000);

    it('loses nothing acknowledged: each write is readable with one version and exactly one created event', async () => {
      expect(acknowledged.length).toBeGreaterThanOrEqual(2 * WRITES.length);
      for (const { kind, id } of acknowledged) {
        const read = await api.call('GET', `${app}/${kind}/${id}`, { token });
        expect(read.status, `${kind} ${id}`).toBe(200);
        expect(read.body.id).toBe(id);
        // Written once: no retry of ours applied it twice.
        if (kind === 'content') expect(read.body.revision, `${kind} ${id}`).toBe(1);
        const events = await api.call('GET', `${app}/${kind}/${id}/events?limit=100`, { token });
        expect(events.status, JSON.stringify(events.body)).toBe(200);
        expect(
          events.body.data.map((e: { type: string }) => e.type),
          `${kind} ${id}`,
        ).toEqual([`${kind}.created`]);
      }
    });
  },
);
