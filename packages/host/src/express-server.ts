// An HTTP server whose requests and responses are born with an Express app's prototypes.
import type { Config } from '@cp/config';
import { notModified } from '@cp/edge';
import type { Express, Request } from 'express';
import { createServer, IncomingMessage, ServerResponse, type Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * How long an idle keep-alive socket stays open. Node's 5 s is shorter than the idle timeouts of load balancers and
 * HTTP clients (60 s is common): a client that reuses a socket the server is closing at that moment gets a reset
 * connection, never an answer. A server that keeps idle sockets longer than its callers do is the one that never
 * closes under them. An idle socket is not a request: the headers and request deadlines count from a request's first
 * byte, so they can be far shorter.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;
/**
 * How often Node looks for requests past their deadlines (its default is 30 s, which would let a slow-header
 * connection live up to 30 s past a 5 s deadline).
 */
const DEADLINE_CHECK_MS = 1000;

/**
 * Express gives every request and response its own prototype (`Object.setPrototypeOf(req, app.request)`) as it enters
 * the app. Changing the prototype of a live object makes V8 give it a new, slow shape, so every later property access
 * on it, in Node's HTTP code as much as in ours, takes the slow path: a fifth to a third of a request's CPU
 * (bench/RESULTS.md, "The HTTP objects' prototype"). Created by these constructors, they already have the prototype
 * Express sets, and setting the same prototype again changes nothing.
 */
export function expressServer(
  app: Express,
  timeouts: Pick<Config['http'], 'headersTimeoutMs' | 'requestTimeoutMs'>,
): Server {
  function AppRequest(this: IncomingMessage, socket: Socket) {
    IncomingMessage.call(this, socket);
  }
  AppRequest.prototype = app.request;
  function AppResponse(this: ServerResponse, req: IncomingMessage, options?: object) {
    (ServerResponse as unknown as (req: IncomingMessage, options?: object) => void).call(this, req, options);
  }
  AppResponse.prototype = app.response;
  answerConditionsByOneRule(app);
  const server = createServer({
    IncomingMessage: AppRequest as unknown as typeof IncomingMessage,
    ServerResponse: AppResponse as unknown as typeof ServerResponse,
    // A client that trickles its headers (or body) holds a socket and its buffers: past these it is answered 408 in
    // the envelope (parser-refusals.ts) and the connection closes.
    headersTimeout: timeouts.headersTimeoutMs,
    requestTimeout: timeouts.requestTimeoutMs,
    connectionsCheckingInterval: Math.min(DEADLINE_CHECK_MS, timeouts.headersTimeoutMs),
  });
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  return server;
}

/**
 * Express's `send` answers 304 when `req.fresh` says so; its own rule (the `fresh` package) treats a request's
 * `Cache-Control: no-cache` as asking for the whole answer, which `fetch` sends beside every validator. Every answer
 * follows the platform's one rule instead (`notModified`), as the read cache and the CDN do. No answer sent this way
 * carries `Last-Modified`, so `If-Modified-Since` has nothing to be compared with.
 */
function answerConditionsByOneRule(app: Express): void {
  Object.defineProperty(app.request, 'fresh', {
    configurable: true,
    enumerable: true,
    get(this: Request) {
      const status = this.res!.statusCode;
      const etag = this.res!.getHeader('ETag');
      return (
        (this.method === 'GET' || this.method === 'HEAD') &&
        ((status >= 200 && status < 300) || status === 304) &&
        typeof etag === 'string' &&
        notModified(this, etag)
      );
    },
  });
}
