// The error envelope for requests Node's HTTP parser refuses before any handler sees them, at every HTTP host.
import { AppError, BadRequestError, toErrorEnvelope } from '@cp/errors';
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';

/** What the client is told for each of the parser's refusals (llhttp's codes); anything else is "malformed". */
const CAUSES: Record<string, string> = {
  HPE_INVALID_METHOD: 'The request method is not one HTTP defines.',
  HPE_HEADER_OVERFLOW: 'The request headers are too large.',
  HPE_INVALID_HEADER_TOKEN: 'A header name holds a character HTTP does not allow.',
  HPE_INVALID_URL: 'The request target holds a character HTTP does not allow.',
  HPE_INVALID_CHUNK_SIZE: 'The chunked body is malformed.',
  HPE_CHUNK_EXTENSIONS_OVERFLOW: 'The chunked body is malformed.',
};

/**
 * Node answers a request it cannot parse (an unknown method, a byte a header may not hold, a malformed chunked body,
 * headers past `maxHeaderSize`) with a bare status line. Here that refusal is 400 `BAD_REQUEST` in the envelope with
 * an `X-Request-ID`, like every other answer, `details.reason` naming the parser's code; then the connection
 * closes, as Node closes it. A request whose headers (or body) did not arrive within the server's deadlines
 * (`HTTP_HEADERS_TIMEOUT_MS`, `HTTP_REQUEST_TIMEOUT_MS`) is 408 `REQUEST_TIMEOUT` in the envelope alike (browsers
 * retry on a 408).
 */
export function answerParserRefusals(server: Server): void {
  server.on('clientError', (err: Error & { code?: string }, socket: Duplex) => {
    if (err.code !== 'ECONNRESET' && writable(socket)) socket.write(refusal(err.code ?? 'UNKNOWN'));
    socket.destroy();
  });
}

/**
 * Whether an answer may still be written: not when the client is gone, nor when a response on this connection has
 * started (its bytes would be corrupted; Node checks the same before its own answer).
 */
function writable(socket: Duplex): boolean {
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent: boolean } })._httpMessage;
  return socket.writable && !inFlight?.headersSent;
}

function refusal(reason: string): string {
  const requestId = randomUUID();
  const error =
    reason === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? new AppError('REQUEST_TIMEOUT')
      : new BadRequestError(CAUSES[reason] ?? 'The request is not valid HTTP.', { reason });
  const { status, body } = toErrorEnvelope(error, { requestId, lang: 'en', variablesFrom: 'body' });
  const text = JSON.stringify(body);
  return [
    `HTTP/1.1 ${status} ${status === 408 ? 'Request Timeout' : 'Bad Request'}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(text)}`,
    `X-Request-ID: ${requestId}`,
    'Connection: close',
    '',
    text,
  ].join('\r\n');
}
