// Answers given before the request body is read reach the client instead of a reset connection, at every HTTP host.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** How much of an unread body is discarded after an early answer before the connection is cut (nginx's lingering close). */
export interface LingerLimits {
  maxBytes: number;
  maxMs: number;
  /** A client that stops sending for this long is not waited for. */
  idleMs: number;
}

export const LINGER_LIMITS: LingerLimits = { maxBytes: 128 * 1024 * 1024, maxMs: 30_000, idleMs: 5_000 };

const POLL_MS = 50;

/**
 * Two ways an early answer gets through:
 * - `Expect: 100-continue`: Node would send 100 Continue at once; it is sent only when the application reads the
 *   body, so a refusal is the final answer and the client never sends the body (curl does this for large bodies).
 * - Otherwise (fetch/undici): closing a socket with unread bytes makes the kernel reset it, and a client still
 *   writing sees EPIPE instead of the answer. After an answer the rest of the body is read and discarded, within
 *   `limits`, and only then may the connection close (error-writer.ts discards it before its answers: undici gives
 *   up on a request whose answer comes while it is still writing).
 */
export function lingerAfterEarlyAnswers(server: Server, limits: LingerLimits = LINGER_LIMITS): void {
  server.on('checkContinue', (req, res) => {
    continueOnFirstRead(req, res);
    server.emit('request', req, res);
  });
  server.prependListener('request', (req, res) => {
    if (!hasBody(req)) return;
    const socket = req.socket; // detached from req once the answer is sent
    deferCloseWhileUnread(socket, limits);
    bodyOf.set(socket, req);
    res.once('finish', () => {
      if (!req.complete) linger(req, socket, limits);
    });
  });
}

/** The request on each socket whose body may still be arriving. */
const bodyOf = new WeakMap<Socket, IncomingMessage>();
const deferred = new WeakSet<Socket>();
const lingering = new WeakMap<IncomingMessage, { then?: () => void }>();

function hasBody(req: IncomingMessage): boolean {
  return Number(req.headers['content-length']) > 0 || req.headers['transfer-encoding'] !== undefined;
}

/** Requests that asked for `Expect: 100-continue` and have not been told to send their body. */
const awaiting = new WeakSet<IncomingMessage>();

/** True while the client waits for 100 Continue: it sends no body, so an answer now is the whole exchange. */
export function awaitingContinue(req: IncomingMessage): boolean {
  return awaiting.has(req);
}

function continueOnFirstRead(req: IncomingMessage, res: ServerResponse) {
  let continued = false;
  awaiting.add(req);
  // IncomingMessage#_read runs when a consumer first wants body bytes (pipe, resume, 'data', read()).
  const target = req as unknown as { _read(n: number): void };
  const read = target._read;
  target._read = function (this: IncomingMessage, n: number) {
    target._read = read;
    awaiting.delete(req);
    if (!res.headersSent) {
      continued = true;
      res.writeContinue();
    }
    return read.call(this, n);
  };
  // Answered without asking for the body: the client may still send it or not, so this connection ends here.
  const writeHead = res.writeHead;
  res.writeHead = function (this: ServerResponse, ...args: Parameters<ServerResponse['writeHead']>) {
    if (!continued && !this.headersSent) this.setHeader('Connection', 'close');
    return writeHead.apply(this, args);
  } as ServerResponse['writeHead'];
}

/** Node ends a `Connection: close` answer with socket.destroySoon(): postponed until the unread body is discarded. */
function deferCloseWhileUnread(socket: Socket, limits: LingerLimits) {
  if (deferred.has(socket)) return;
  deferred.add(socket);
  const target = socket as Socket & { destroySoon(): void };
  const destroySoon = target.destroySoon;
  target.destroySoon = function (this: Socket) {
    const req = bodyOf.get(socket);
    if (req && !req.complete && !socket.destroyed) return linger(req, socket, limits, () => destroySoon.call(this));
    return destroySoon.call(this);
  };
}

/** After an early answer: discard the rest of the body, then `then` (Node's close) or, past the limits, cut it. */
function linger(req: IncomingMessage, socket: Socket, limits: LingerLimits, then?: () => void) {
  const known = lingering.get(req);
  if (known) {
    known.then ??= then;
    return;
  }
  const state: { then?: () => void } = { then };
  lingering.set(req, state);
  void discardBody(req, socket, limits).then((drained) => {
    if (drained) state.then?.();
    else socket.destroy();
  });
}

/**
 * Reads the rest of `req`'s body and drops it; true once it has all arrived, false past `limits` (or when the
 * connection closed). Works on a request stream a reader destroyed midway (`for await` that threw): the HTTP parser
 * still owns the socket, and is told to drop the bytes instead of pushing them to the dead stream.
 */
export function discardBody(
  req: IncomingMessage,
  socket: Socket,
  limits: LingerLimits = LINGER_LIMITS,
): Promise<boolean> {
  if (req.complete) return Promise.resolve(true);
  if (req.destroyed) {
    (req as unknown as { _dumped: boolean })._dumped = true;
    socket.resume();
  } else req.resume();
  return new Promise((done) => {
    const started = Date.now();
    const from = socket.bytesRead;
    let seen = from;
    let seenAt = started;
    const stop = (drained: boolean) => {
      clearInterval(timer);
      socket.off('close', onClose);
      done(drained);
    };
    const onClose = () => stop(req.complete);
    const timer = setInterval(() => {
      if (req.complete) return stop(true);
      const now = Date.now();
      if (socket.bytesRead !== seen) [seen, seenAt] = [socket.bytesRead, now];
      if (seen - from > limits.maxBytes || now - started > limits.maxMs || now - seenAt > limits.idleMs) stop(false);
    }, POLL_MS);
    timer.unref();
    socket.once('close', onClose);
  });
}
