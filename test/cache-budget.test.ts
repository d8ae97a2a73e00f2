// CACHE_MAX_BYTES takes any positive integer (@cp/config); the admin entry reads' quarter of it (app.ts) must not
// round down to a budget the LRU refuses: a gateway configured with a tiny cache still starts and answers.
import { afterAll, describe, expect, it } from 'vitest';
import { Client, PROJECT } from './support/client';
import { startService, type TestService } from './support/service';

describe('the smallest cache budgets', () => {
  let service: TestService | undefined;
  afterAll(() => service?.destroy());

  it('CACHE_MAX_BYTES=3 starts a gateway that answers admin entry reads', async () => {
    service = await startService({ env: { CACHE_MAX_BYTES: '3' } });
    const client = new Client(service.url);
    const token = await client.login();
    const res = await client.call('GET', `/app/v1${PROJECT}/content/missing`, { token });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
  }, 120_000);
});
