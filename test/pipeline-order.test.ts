// Black-box property: no request is answered before authentication and the rate limit ran. Every cacheable read
// (REST list and entry, HEAD, GraphQL over POST and GET, an admin entry read) is first answered and stored, so a stage
// answering in front of those two would serve it; then a revoked key must get 401 and an exhausted budget 429, on
// every kind of read, in any order.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, PROJECT, type HttpResult } from './support/client';
import { startService, type TestService } from './support/service';

const RUNS = Number(process.env.FC_RUNS ?? 10);
const SEED = Number(process.env.FC_SEED ?? 20261128);
const PER_MINUTE = 40;
const app = `/app/v1${PROJECT}`;
const api = `/api/v1${PROJECT}`;
const CONTENTS = 'query { contents(organizationId: "default", projectId: "default", limit: 20) { data { id } } }';

type Read = (client: Client, credentials: { apiKey?: string; token?: string }) => Promise<HttpResult>;

/** The reads a key holder makes; each is a cache hit once made. */
function keyReads(id: string): Record<string, Read> {
  return {
    'REST list': (c, who) => c.call('GET', `${api}/content?limit=20`, who),
    'REST entry': (c, who) => c.call('GET', `${api}/content/${id}/resolved`, who),
    'REST HEAD': (c, who) => c.call('HEAD', `${api}/content/${id}/resolved`, who),
    'GraphQL POST': (c, who) => c.call('POST', '/graphql', { ...who, body: { query: CONTENTS } }),
    'GraphQL GET': (c, who) => c.call('GET', `/graphql?query=${encodeURIComponent(CONTENTS)}`, who),
  };
}

const codeOf = (res: HttpResult) => res.body?.error?.code ?? res.body?.errors?.[0]?.extensions?.code;

describe('every request passes authentication and the rate limit before any stage may answer it', () => {
  let service: TestService;
  let client: Client;
  let token: string;
  let id: string;
  let reads: Record<string, Read>;

  beforeAll(async () => {
    // Failed authentications spend the address's anonymous budget: kept out of reach, so a refused key is 401.
    const env = {
      RATE_LIMIT_PER_MINUTE: String(PER_MINUTE),
      RATE_LIMIT_PER_HOUR: '100000',
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: '100000',
    };
    service = await startService({ env });
    client = new Client(service.url);
    token = await client.login();
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await client.call(method, path, { token, body });
      expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
      return res.body;
    };
    const type = await call('POST', `${app}/content-types`, { name: 'Order', schema: { type: 'object' } });
    await call('POST', `${app}/content-types/${type.id}/publish`);
    id = (await call('POST', `${app}/content`, { typeId: type.id, name: 'entry', content: { a: 1 } })).id;
    await call('POST', `${app}/content/${id}/publish`);
    reads = keyReads(id);
  }, 120_000);

  afterAll(() => service?.destroy());

  /** Makes every read once with a fresh key (stored answers, a cached principal); returns the key and its id. */
  async function warmKey(): Promise<{ key: string; keyId: string }> {
    const created = await client.call('POST', `${app}/api-keys`, { token, body: { name: `reader ${Date.now()}` } });
    const { key, id: keyId } = created.body;
    for (const read of Object.values(reads)) {
      expect((await read(client, { apiKey: key })).status).toBe(200);
      const again = await read(client, { apiKey: key });
      expect(again.status).toBe(200);
      expect(again.headers.get('x-cache')).toBe('HIT');
    }
    return { key, keyId };
  }

  /** Any sequence of the key's reads, each refused with `status` and `code` (a HEAD answer has no body to check). */
  const everyReadRefused = (key: string, status: number, code: string) =>
    fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom(...Object.keys(reads)), { minLength: 1, maxLength: 6 }),
        async (names) => {
          for (const name of names) {
            const res = await reads[name](client, { apiKey: key });
            expect({ name, status: res.status }).toEqual({ name, status });
            if (name !== 'REST HEAD') expect(codeOf(res)).toBe(code);
          }
        },
      ),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );

  it('refuses a revoked key with 401 on every read, although each answer is stored', async () => {
    const { key, keyId } = await warmKey();
    expect((await client.call('POST', `${app}/api-keys/${keyId}/revoke`, { token })).status).toBe(200);
    await everyReadRefused(key, 401, 'UNAUTHORIZED');
  });

  it('refuses a key over its budget with 429 on every read, although each answer is stored', async () => {
    const { key } = await warmKey();
    let last: HttpResult | undefined;
    for (let i = 0; i <= PER_MINUTE && last?.status !== 429; i++)
      last = await reads['REST list'](client, { apiKey: key });
    expect(last?.status).toBe(429);
    await everyReadRefused(key, 429, 'RATE_LIMITED');
  });

  it('refuses an admin over its budget with 429 on an entry read whose answer is stored', async () => {
    const read = () => client.call('GET', `${app}/content/${id}`, { token });
    expect((await read()).status).toBe(200);
    expect((await read()).status).toBe(200);
    let last: HttpResult | undefined;
    for (let i = 0; i <= PER_MINUTE && last?.status !== 429; i++) last = await read();
    expect(last?.status).toBe(429);
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 4 }), async (times) => {
        for (let i = 0; i < times; i++) {
          const res = await read();
          expect(res.status).toBe(429);
          expect(codeOf(res)).toBe('RATE_LIMITED');
        }
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
  });
});
