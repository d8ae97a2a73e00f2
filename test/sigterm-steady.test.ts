// Black-box: SIGTERM under a steady load of writes and reads on keep-alive sockets: until the load balancer has seen
// `/ready` turn 503 every request is answered without a 5xx or a reset, and every 2xx write is committed.
import { Client as Pg } from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { Client, PROJECT } from './support/client';
import { startService, UNLIMITED, type TestService } from './support/service';

const base = `/app/v1${PROJECT}`;
const SHUTDOWN_ENV = {
  NODE_ENV: 'production',
  SHUTDOWN_GRACE_MS: '1500',
  SHUTDOWN_TIMEOUT_MS: '15000',
  EMBEDDINGS: 'off',
  ...UNLIMITED,
};

describe('SIGTERM under a steady load', () => {
  let service: TestService;
  afterAll(() => service?.destroy());

  it('answers every request sent before the balancer saw /ready 503, and commits every 2xx write', async () => {
    service = await startService({ env: SHUTDOWN_ENV });
    const token = await new Client(service.url).login();
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    let balancerSawDrain = false;
    const dropped: string[] = [];
    const written: string[] = [];
    let sent = 0;
    // Sixteen clients, each sending its next request as soon as the last one was answered: half writes, half reads.
    const client = async () => {
      while (!balancerSawDrain) {
        const i = sent++;
        const write = i % 2 === 0;
        try {
          const res = write
            ? await fetch(`${service.url}${base}/tags`, {
                method: 'POST',
                headers,
                body: JSON.stringify({ name: `steady ${i}` }),
              })
            : await fetch(`${service.url}${base}/content-types?limit=5`, { headers });
          await res.arrayBuffer();
          if (res.status >= 500) dropped.push(`${i}: ${res.status}`);
          else if (write && res.status === 201) written.push(`steady ${i}`);
        } catch (err) {
          dropped.push(`${i}: ${String((err as { cause?: { code?: string } }).cause?.code ?? err)}`);
        }
      }
    };
    const clients = Array.from({ length: 16 }, client);
    await new Promise((r) => setTimeout(r, 1000));
    const exited = new Promise<number | null>((r) => service.child.once('exit', (code) => r(code)));
    service.child.kill('SIGTERM');
    // The balancer's health check, every 100 ms: it sends nothing more after its first answer that is not 200.
    while ((await fetch(`${service.url}/ready`).then((r) => r.status)) === 200)
      await new Promise((r) => setTimeout(r, 100));
    balancerSawDrain = true;
    await Promise.all(clients);
    expect(await exited).toBe(0);
    expect(dropped).toEqual([]);
    expect(written.length).toBeGreaterThan(0);
    const pg = new Pg({ connectionString: service.databaseUrl });
    await pg.connect();
    try {
      const kept = new Set((await pg.query<{ name: string }>('select "name" from "tag"')).rows.map((r) => r.name));
      expect(written.filter((name) => !kept.has(name))).toEqual([]);
    } finally {
      await pg.end();
    }
  }, 60_000);
});
