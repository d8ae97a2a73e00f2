// writeError on a real node:http server: the caller's request facts, the failure log (outages throttled to one line per
// interval), Retry-After on 429. Early refusals: test/service-early-refusal.test.ts and test/early-refusal.test.ts.
import type { Logger } from '@cp/config';
import { AppError, RateLimitedError, UnavailableError, type EdgeContext } from '@cp/errors';
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { writeError } from './error-writer';

/** A real pino logger whose JSON lines are kept. */
function recordingLogger() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()));
      done();
    },
  });
  return { logger: pino({ base: undefined, timestamp: false }, stream) as unknown as Logger, lines };
}

/** Logged fields that matter here (pino adds level and time). */
const fields = ({ msg, code, requestId, refused }: Record<string, unknown>) => ({ msg, code, requestId, refused });

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as AddressInfo).port };
}

interface Reply {
  status: number;
  headers: IncomingMessage['headers'];
  body: any;
}

/** A body-less POST and its answer. */
function post(port: number, path: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ port, host: '127.0.0.1', path, method: 'POST' }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end();
  });
}

const edgeOf = (requestId: string): EdgeContext => ({ requestId, lang: 'en', variablesFrom: 'body' });

describe('writeError', () => {
  afterEach(() => vi.useRealTimers());

  it('logs answered 503s as one throttled line per interval, with how many it stands for', async () => {
    // Only Date is faked: the interval is read from Date.now(), the sockets keep their real timers.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2030-01-01T00:00:00Z'));
    const { logger, lines } = recordingLogger();
    const { server, port } = await serve((req, res) =>
      writeError(res, new UnavailableError(), { logger, edge: edgeOf(req.url!.slice(1)) }),
    );
    try {
      const statuses = [];
      for (const id of ['r0', 'r1', 'r2', 'r3']) statuses.push((await post(port, `/${id}`)).status);
      vi.setSystemTime(new Date('2030-01-01T00:00:04.999Z'));
      statuses.push((await post(port, '/r4')).status);
      vi.setSystemTime(new Date('2030-01-01T00:00:05Z'));
      statuses.push((await post(port, '/r5')).status);
      expect(statuses).toEqual([503, 503, 503, 503, 503, 503]);
      const line = 'answered 503: a backing service is unavailable';
      expect(lines.map(fields)).toEqual([
        { msg: line, code: 'UNAVAILABLE', requestId: 'r0', refused: 1 },
        { msg: line, code: 'UNAVAILABLE', requestId: 'r5', refused: 5 },
      ]);
    } finally {
      server.close();
    }
  });

  it('carries the caller’s request id, logs INTERNAL in full and refusals not at all, and sets Retry-After on 429', async () => {
    const { logger, lines } = recordingLogger();
    const errors: Record<string, unknown> = {
      '/internal': new Error('boom'),
      '/forbidden': new AppError('FORBIDDEN', 'No.'),
      '/limited': new RateLimitedError(7),
    };
    const { server, port } = await serve((req, res) =>
      writeError(res, errors[req.url!], { logger, edge: edgeOf(`id${req.url}`), graphql: req.url === '/limited' }),
    );
    try {
      const internal = await post(port, '/internal');
      expect([internal.status, internal.body.error.code, internal.body.error.details?.requestId]).toEqual([
        500,
        'INTERNAL',
        'id/internal',
      ]);
      expect((await post(port, '/forbidden')).status).toBe(403);
      const limited = await post(port, '/limited');
      expect([limited.status, limited.headers['retry-after'], limited.body.errors[0].extensions.code]).toEqual([
        429,
        '7',
        'RATE_LIMITED',
      ]);
      expect(lines.map(({ msg, requestId, err }) => ({ msg, requestId, err: (err as any)?.message }))).toEqual([
        { msg: 'unexpected error', requestId: 'id/internal', err: 'boom' },
      ]);
    } finally {
      server.close();
    }
  });
});
