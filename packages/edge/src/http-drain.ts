// Stops an HTTP server the graceful way: a grace window still served, then no new connections, in-flight requests finish.
import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';
import { pendingConnections } from './accept-queue';
import type { Readiness } from './readiness';

/**
 * How long sockets that are idle when the drain starts stay open: a request a keep-alive client wrote just before
 * it saw the listener close is still read and answered (with `Connection: close`) instead of reset.
 */
const IDLE_LINGER_MS = 100;

/**
 * Counts requests per socket. `createServer(drain.listener(app))` puts the count in front of the app; from `retire()`
 * on every answer carries `Connection: close`, so keep-alive clients reconnect (elsewhere, once their load balancer saw
 * `/ready` turn 503) and Node closes each socket after its last answer.
 */
export class HttpDrain {
  private readonly sockets = new Map<Socket, number>();
  private readonly responses = new Set<ServerResponse>();
  private retired = false;
  private draining = false;
  /** The drain ended: sockets are closing and cannot carry an answer any more. */
  private closed = false;
  private idle: (() => void) | undefined;

  /** `readiness` turns `draining` (503) at `retire()`. */
  constructor(private readonly readiness?: Readiness) {}

  listener(app: RequestListener): RequestListener {
    return (req: IncomingMessage, res: ServerResponse) => {
      const socket = req.socket;
      if (this.closed) {
        socket.destroy();
        return;
      }
      this.sockets.set(socket, (this.sockets.get(socket) ?? 0) + 1);
      this.responses.add(res);
      if (this.retired) res.setHeader('Connection', 'close');
      res.once('close', () => {
        this.responses.delete(res);
        this.finished(socket);
      });
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

  /** The grace window's start: `/ready` turns 503 and answers close their connection; the server still accepts. */
  retire(): void {
    this.retired = true;
    this.readiness?.draining();
    // Answers being prepared close their connection too (one already streaming ends at the drain's end instead).
    for (const res of this.responses) if (!res.headersSent) res.setHeader('Connection', 'close');
  }

  /**
   * Stops accepting once the kernel's accept queue is empty, waits for in-flight requests until `deadline` (epoch ms)
   * while still answering requests that arrive on open keep-alive sockets, then closes the idle sockets (destroys
   * everything when cut at the deadline). Resolves true when every request finished on its own.
   */
  async drain(server: Server, deadline: number): Promise<boolean> {
    this.retire();
    this.draining = true;
    if (server.listening) {
      // Connections the kernel already queued would be reset by the close: accept them first (bounded by the deadline).
      while (Date.now() < deadline && ((await pendingConnections(server)) ?? 0) > 0)
        await new Promise((r) => setTimeout(r, 20));
      // net.Server's close only stops accepting; http.Server's would also destroy idle keep-alive sockets at once,
      // resetting a request a client is writing on one of them right now.
      NetServer.prototype.close.call(server);
    }
    const clean = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), Math.max(0, deadline - Date.now()));
      const wait = () => {
        this.idle = () => {
          clearTimeout(timer);
          resolve(true);
        };
        this.check();
      };
      setTimeout(wait, Math.min(IDLE_LINGER_MS, Math.max(0, deadline - Date.now())));
    });
    this.idle = undefined;
    this.closed = true;
    // Idle sockets get a FIN after anything still buffered; only a cut drain resets what is left.
    for (const socket of this.sockets.keys()) {
      if (clean) socket.end();
      else socket.destroy();
    }
    return clean;
  }

  private finished(socket: Socket): void {
    const count = (this.sockets.get(socket) ?? 1) - 1;
    if (this.sockets.has(socket)) this.sockets.set(socket, count);
    this.check();
  }

  private check(): void {
    if (this.draining && this.inFlight === 0) this.idle?.();
  }
}
