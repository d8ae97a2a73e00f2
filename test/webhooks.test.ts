// Black-box: webhooks are signed, retried with backoff, logged, and can be redelivered (beyond the spec).
import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT } from './support/client';
import { useService } from './support/setup';
import { waitFor } from './support/wait';

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

const app = `/app/v1${PROJECT}`;

/** Recomputes the signature the way a receiver would: HMAC-SHA256 over "<t>.<body>". */
function validSignature(secret: string, received: Received): boolean {
  const parts = Object.fromEntries(
    String(received.headers['x-cp-signature'])
      .split(',')
      .map((p) => p.split('=')),
  );
  return createHmac('sha256', secret).update(`${parts.t}.${received.body}`).digest('hex') === parts.v1;
}

describe('webhooks', () => {
  const fx = useService({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: '1', WEBHOOK_RETRY_BASE_MS: '200' } });
  const received: Received[] = [];
  let failuresLeft = 1;
  let receiver: Server;
  let url: string;

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        received.push({ headers: req.headers, body });
        res.statusCode = failuresLeft-- > 0 ? 500 : 204;
        res.end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
  });
  afterAll(() => receiver?.close());

  const deliveries = (count: number) =>
    waitFor(`${count} deliveries`, () => received.length >= count, { timeoutMs: 15_000 });

  it('delivers signed events of the chosen types, retries a failure, and logs every delivery', async () => {
    const created = await fx.api.call('POST', `${app}/webhooks`, {
      token: fx.token,
      body: { url, eventTypes: ['content-types.created'] },
    });
    expect(created.status).toBe(201);
    const { secret, id } = created.body;
    expect(secret).toMatch(/^whsec_/);
    const got = await fx.api.call('GET', `${app}/webhooks/${id}`, { token: fx.token });
    expect(got.body).not.toHaveProperty('secret');
    expect(JSON.stringify(got.body)).not.toContain(secret);

    const type = (
      await fx.api.call('POST', `${app}/content-types`, {
        token: fx.token,
        body: { name: 'Hooked', schema: { type: 'object' } },
      })
    ).body;
    await fx.api.call('PUT', `${app}/content-types/${type.id}`, {
      token: fx.token,
      body: { description: 'not delivered' },
    });
    await deliveries(2);
    const [first, second] = received;
    expect(first.headers['x-cp-delivery']).toBe(second.headers['x-cp-delivery']);
    expect(validSignature(secret, second)).toBe(true);
    expect(validSignature('whsec_wrong', second)).toBe(false);
    expect(JSON.parse(second.body)).toMatchObject({
      event: { type: 'content-types.created', resourceId: type.id, projectId: 'default' },
    });

    let log = await fx.api.call('GET', `${app}/webhooks/${id}/deliveries`, { token: fx.token });
    const deadline = Date.now() + 5000;
    while (log.body.data[0]?.status !== 'delivered' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      log = await fx.api.call('GET', `${app}/webhooks/${id}/deliveries`, { token: fx.token });
    }
    expect(log.body.pagination.total).toBe(1);
    expect(log.body.data[0]).toMatchObject({
      eventType: 'content-types.created',
      status: 'delivered',
      attempts: 2,
      responseCode: 204,
      durationMs: expect.any(Number),
    });

    const again = await fx.api.call('POST', `${app}/webhooks/${id}/deliveries/${log.body.data[0].id}/redeliver`, {
      token: fx.token,
    });
    expect(again.body.status).toBe('pending');
    await deliveries(3);
    expect(received[2].headers['x-cp-delivery']).toBe(log.body.data[0].id);
    expect(received.map((r) => JSON.parse(r.body).event.type)).not.toContain('content-types.updated');
  });

  it("keeps one target's hanging receiver from delaying another project's delivery", async () => {
    // Project A's receiver never answers; project B's answers at once.
    const hanging: Array<() => void> = [];
    const slow = createServer((req, res) => {
      hanging.push(() => res.end());
      req.resume();
    });
    const fast: string[] = [];
    const quick = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        fast.push(body);
        res.end();
      });
    });
    const listen = async (server: Server) => {
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      return `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`;
    };
    const [slowUrl, quickUrl] = [await listen(slow), await listen(quick)];
    try {
      const other = (
        await fx.api.call('POST', '/app/v1/organizations/default/projects', {
          token: fx.token,
          body: { name: 'Other tenant' },
        })
      ).body;
      const appB = `/app/v1/organizations/default/projects/${other.id}`;
      expect(
        (
          await fx.api.call('POST', `${app}/webhooks`, {
            token: fx.token,
            body: { url: slowUrl, eventTypes: ['tags.created'] },
          })
        ).status,
      ).toBe(201);
      expect(
        (
          await fx.api.call('POST', `${appB}/webhooks`, {
            token: fx.token,
            body: { url: quickUrl, eventTypes: ['tags.created'] },
          })
        ).status,
      ).toBe(201);

      await fx.api.call('POST', `${app}/tags`, { token: fx.token, body: { name: 'slow-1' } });
      await fx.api.call('POST', `${app}/tags`, { token: fx.token, body: { name: 'slow-2' } });
      await waitFor('the hanging delivery', () => hanging.length === 1);
      await fx.api.call('POST', `${appB}/tags`, { token: fx.token, body: { name: 'quick' } });
      await waitFor('the fast delivery', () => fast.length === 1);
      // B arrived while A's first attempt is still open, and A's queue waits behind its own attempt (one in flight per target).
      expect(hanging).toHaveLength(1);
      expect(JSON.parse(fast[0]).event).toMatchObject({ type: 'tags.created', projectId: other.id });
    } finally {
      for (const release of hanging) release();
      slow.closeAllConnections();
      await new Promise((r) => slow.close(r));
      await new Promise((r) => quick.close(r));
    }
  });

  it('cancels what a deactivated webhook had queued and stops retrying it', async () => {
    let calls = 0;
    const failing = createServer((req, res) => {
      calls++;
      req.resume();
      res.statusCode = 503;
      res.end();
    });
    await new Promise<void>((r) => failing.listen(0, '127.0.0.1', r));
    try {
      const target = `http://127.0.0.1:${(failing.address() as { port: number }).port}/hook`;
      const hook = (
        await fx.api.call('POST', `${app}/webhooks`, {
          token: fx.token,
          body: { url: target, eventTypes: ['folders.created'] },
        })
      ).body;
      await fx.api.call('POST', `${app}/folders`, { token: fx.token, body: { name: `retry-${Date.now()}` } });
      await waitFor('a retry', () => calls >= 2); // failed, then retried (base 200 ms)
      const off = await fx.api.call('PUT', `${app}/webhooks/${hook.id}`, { token: fx.token, body: { active: false } });
      expect(off.body.active).toBe(false);
      const log = async () =>
        (await fx.api.call('GET', `${app}/webhooks/${hook.id}/deliveries`, { token: fx.token })).body.data[0];
      await waitFor('the cancelled delivery', async () => (await log()).status === 'cancelled');
      const seen = calls;
      // Several retry periods (200, 400, 800 ms…) pass without another attempt.
      await new Promise((r) => setTimeout(r, 2500));
      expect(calls).toBe(seen);
      expect(await log()).toMatchObject({ status: 'cancelled', error: 'webhook deactivated' });
    } finally {
      await new Promise((r) => failing.close(r));
    }
  });

  it('refuses URLs that are not http(s) with 422', async () => {
    const res = await fx.api.call('POST', `${app}/webhooks`, { token: fx.token, body: { url: 'file:///etc/passwd' } });
    expect(res.status).toBe(422);
    expect(res.body.error.details.errors[0].path).toBe('/url');
  });
});
