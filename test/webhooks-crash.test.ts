// Black-box: webhook deliveries survive a SIGKILL of the gateway: every event is delivered at least once after a restart.
import { createServer, type Server } from 'node:http';
import { Client as Pg } from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { Client, PROJECT } from './support/client';
import { startService, type TestService } from './support/service';

const app = `/app/v1${PROJECT}`;
const EVENTS = 20;

describe('webhooks across a crash', () => {
  const running: TestService[] = [];
  let receiver: Server | undefined;
  afterAll(async () => {
    receiver?.close();
    for (const s of running.reverse()) await s.destroy();
  });

  it('delivers every event at least once when the gateway was killed with attempts in flight', async () => {
    // The attempts the kill cuts stay `sending` until their lease (three attempt timeouts, 30 s by default) runs out,
    // and every later delivery of the webhook waits behind them: that wait was most of this test. The receiver answers
    // in 300 ms, so 2 s per attempt still leaves room on a loaded machine (an attempt that times out is retried after
    // 200 ms; the receiver may then count it twice, which at-least-once allows).
    const env = { WEBHOOK_ALLOW_PRIVATE_TARGETS: '1', WEBHOOK_RETRY_BASE_MS: '200', WEBHOOK_TIMEOUT_MS: '2000' };
    const first = await startService({ env });
    running.push(first);
    const delivered = new Map<string, number>();
    // A slow receiver: each attempt is in flight for 300 ms, so the kill finds some.
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () =>
        setTimeout(() => {
          const id = JSON.parse(body).event.id as string;
          delivered.set(id, (delivered.get(id) ?? 0) + 1);
          res.statusCode = 204;
          res.end();
        }, 300),
      );
    });
    await new Promise<void>((r) => receiver!.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
    const api = new Client(first.url);
    const token = await api.login();
    const hook = await api.call('POST', `${app}/webhooks`, { token, body: { url, eventTypes: ['tags.created'] } });
    expect(hook.status).toBe(201);
    for (let i = 0; i < EVENTS; i++)
      expect((await api.call('POST', `${app}/tags`, { token, body: { name: `hooked ${i}` } })).status).toBe(201);
    const started = Date.now();
    while (delivered.size < 2 && Date.now() - started < 20_000) await new Promise((r) => setTimeout(r, 20));
    await first.stop('SIGKILL');
    running.push(await startService({ databaseUrl: first.databaseUrl, env }));
    const pg = new Pg({ connectionString: first.databaseUrl });
    await pg.connect();
    try {
      const events = (
        await pg.query<{ id: string }>(`select "id" from "event" where "type" = 'tags.created'`)
      ).rows.map((r) => r.id);
      expect(events).toHaveLength(EVENTS);
      const deadline = Date.now() + 45_000;
      while (events.some((id) => !delivered.has(id)) && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 100));
      expect(events.filter((id) => !delivered.has(id))).toEqual([]);
      // An attempt the receiver answered but the dead process never recorded is `sending` until its lease runs out;
      // then it is made again: the delivery log ends with every delivery delivered.
      const log = async () =>
        (await pg.query(`select "status", count(*)::int as n from "webhook_delivery" group by "status"`)).rows;
      while (
        JSON.stringify(await log()) !== JSON.stringify([{ status: 'delivered', n: EVENTS }]) &&
        Date.now() < deadline
      )
        await new Promise((r) => setTimeout(r, 200));
      expect(await log()).toEqual([{ status: 'delivered', n: EVENTS }]);
    } finally {
      await pg.end();
    }
  }, 90_000);
});
