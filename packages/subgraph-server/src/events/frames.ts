// WebSocket text frames built by the fan-out itself and written straight to the TCP socket: one buffer, one write.
// The bytes are what `ws` writes for `send(text)` on a server socket (test/fanout.test.ts pins them to `ws`'s own
// framing); `ws` would otherwise encode the text, frame it and write header and body separately, per socket.

/** What the fan-out needs of a server-side WebSocket (`ws`). */
export interface FanOutSocket {
  readonly readyState: number;
  readonly bufferedAmount: number;
  send(data: string): void;
  close(code: number, reason: string): void;
}

/** The parts of a `ws` WebSocket the direct write relies on (private in `ws` 8; absent → `send`). */
interface WsInternals {
  _socket?: { write(chunk: Buffer): boolean };
  _sender?: { _queue?: unknown[]; _state?: number; _deflating?: boolean };
  _extensions?: Record<string, unknown>;
}

/**
 * The TCP socket under `socket` when frames may be written to it directly: a `ws` server socket without
 * permessage-deflate (compressed frames differ per socket; our server never negotiates it). `undefined` means `send`.
 */
export function directSocket(socket: FanOutSocket): WsInternals | undefined {
  const ws = socket as unknown as WsInternals;
  const plain = ws._extensions !== undefined && Object.keys(ws._extensions).length === 0;
  return plain && typeof ws._socket?.write === 'function' && Array.isArray(ws._sender?._queue) ? ws : undefined;
}

/**
 * `head` then `payload` as one unmasked, unfragmented text frame (RFC 6455 §5.2): FIN + opcode 1, then the length in
 * 7 bits, or 126 and 16 bits, or 127 and 64 bits, then the bytes. Server frames are never masked.
 */
export function textFrame(head: Buffer, payload: Buffer): { frame: Buffer; headerBytes: number } {
  const length = head.length + payload.length;
  const headerBytes = length < 126 ? 2 : length < 65536 ? 4 : 10;
  const frame = Buffer.allocUnsafe(headerBytes + length);
  frame[0] = 0x81;
  if (headerBytes === 2) {
    frame[1] = length;
  } else if (headerBytes === 4) {
    frame[1] = 126;
    frame.writeUInt16BE(length, 2);
  } else {
    frame[1] = 127;
    frame.writeUInt32BE(Math.floor(length / 2 ** 32), 2);
    frame.writeUInt32BE(length >>> 0, 6);
  }
  head.copy(frame, headerBytes);
  payload.copy(frame, headerBytes + head.length);
  return { frame, headerBytes };
}

/**
 * Writes `head` + `payload` as one text message and returns the bytes it queued. Directly when `ws` has nothing of its
 * own in flight (only while compressing or reading a Blob, and a frame written past it would overtake it), else
 * through `send`, which frames the same text the same way.
 */
export function writeText(
  socket: FanOutSocket,
  direct: WsInternals | undefined,
  head: Buffer,
  payload: Buffer,
): number {
  const { frame, headerBytes } = textFrame(head, payload);
  const sender = direct?._sender;
  if (sender && !sender._state && !sender._deflating && sender._queue!.length === 0) direct!._socket!.write(frame);
  else socket.send(frame.toString('utf8', headerBytes));
  return frame.length;
}
