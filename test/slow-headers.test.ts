// Black-box: a client trickling its headers one byte at a time is answered 408 in the envelope and closed within the
// configured HTTP_HEADERS_TIMEOUT_MS, while other requests are served as usual.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type TestService } from './support/service';

const HEADERS_TIMEOUT_MS = 2000;
/** Node checks the deadlines every second (express-server.ts); the rest is a loaded machine's scheduling. */
const SLACK_MS = 2000;
const CONNECTIONS = 50;

interface Trickle {
  socket: Socket;
  answer: Promise<{ text: string; closedAfterMs: number }>;
  stop(): void;
}

/** Sends a request's headers one byte every `everyMs`, forever; resolves with what came back once the server closes. */
function trickle(url: string, everyMs: number): Trickle {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  const started = Date.now();
  const bytes = Buffer.from('GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: ' + 'a'.repeat(10_000));
  let sent = 0;
  const timer = setInterval(
    () => socket.writable && sent < bytes.length && socket.write(bytes.subarray(sent, ++sent)),
    everyMs,
  );
  let text = '';
  socket.on('data', (chunk) => (text += chunk.toString()));
  const answer = new Promise<{ text: string; closedAfterMs: number }>((resolve) => {
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ text, closedAfterMs: Date.now() - started });
    });
  });
  return { socket, answer, stop: () => (clearInterval(timer), socket.destroy()) };
}

describe('a client that sends its headers slowly', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startService({ env: { HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS), EMBEDDINGS: 'off' } });
  });
  afterAll(async () => {
    await service?.destroy();
  });

  it(`is answered 408 REQUEST_TIMEOUT in the envelope and closed within the headers timeout, ${CONNECTIONS} at once, while other requests are served`, async () => {
    const slow = Array.from({ length: CONNECTIONS }, () => trickle(service.url, 200));
    try {
      // Served meanwhile, at once.
      const started = Date.now();
      const health = await fetch(`${service.url}/health`);
      expect(health.status).toBe(200);
      expect(Date.now() - started).toBeLessThan(1000);

      for (const { text, closedAfterMs } of await Promise.all(slow.map((s) => s.answer))) {
        expect(closedAfterMs).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 100);
        expect(closedAfterMs).toBeLessThan(HEADERS_TIMEOUT_MS + SLACK_MS);
        const [head, body] = text.split('\r\n\r\n');
        expect(head).toMatch(/^HTTP\/1.1 408 /);
        expect(head).toMatch(/\r\nConnection: close/i);
        expect(head).toMatch(/\r\nX-Request-ID: [0-9a-f-]{36}/i);
        expect(JSON.parse(body)).toEqual({
          error: { code: 'REQUEST_TIMEOUT', message: expect.any(String) },
        });
      }
    } finally {
      for (const s of slow) s.stop();
    }
  }, 30_000);
});
