// Stops an HTTP server the graceful way: no new connections, in-flight requests finish, idle keep-alive sockets close.
import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Counts requests per socket. `createServer(drain.listener(app))` puts the count in front of the app, so a request
 * that arrives on a socket already being closed never reaches the app (it was not accepted; nothing ran).
 */
export class HttpDrain {
  private readonly sockets = new Map<Socket, number>();
  private readonly closing = new WeakSet<Socket>();
  private draining = false;
  private idle: (() => void) | undefined;

  listener(app: RequestListener): RequestListener {
    return (req: IncomingMessage, res: ServerResponse) => {
      const socket = req.socket;
      if (this.closing.has(socket)) {
        socket.destroy();
        return;
      }
      this.sockets.set(socket, (this.sockets.get(socket) ?? 0) + 1);
      if (this.draining) res.setHeader('Connection', 'close');
      res.once('close', () => this.finished(socket));
      app(req, res);
    };
  }

  /** Tracks the server's connections; upgraded sockets (WebSockets) leave the count: their server closes them. */
  attach(server: Server): this {
    server.on('connection', (socket: Socket) => {
      this.sockets.set(socket, 0);
      socket.once('close', () => {
        this.sockets.delete(socket);
        this.check();
      });
    });
    server.on('upgrade', (req: IncomingMessage) => {
      this.sockets.delete(req.socket);
      this.check();
    });
    return this;
  }

  /** Requests being served right now. */
  get inFlight(): number {
    let n = 0;
    for (const count of this.sockets.values()) n += count;
    return n;
  }

  /**
   * Stops accepting, closes idle sockets, waits for in-flight requests until `deadline` (epoch ms), then destroys what
   * is left. Resolves true when every request finished on its own.
   */
  async drain(server: Server, deadline: number): Promise<boolean> {
    this.draining = true;
    if (server.listening) server.close();
    for (const [socket, count] of this.sockets) if (count === 0) this.end(socket, true);
    const clean = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), Math.max(0, deadline - Date.now()));
      this.idle = () => {
        clearTimeout(timer);
        resolve(true);
      };
      this.check();
    });
    for (const socket of this.sockets.keys()) socket.destroy();
    return clean;
  }

  private finished(socket: Socket): void {
    const count = (this.sockets.get(socket) ?? 1) - 1;
    if (this.sockets.has(socket)) this.sockets.set(socket, count);
    if (this.draining && count === 0) this.end(socket, false);
    this.check();
  }

  /** An idle socket is destroyed at once; one that just answered is ended after its response is flushed. */
  private end(socket: Socket, idle: boolean): void {
    this.closing.add(socket);
    this.sockets.delete(socket);
    if (idle) socket.destroy();
    else socket.end();
  }

  private check(): void {
    if (this.draining && this.inFlight === 0) this.idle?.();
  }
}
