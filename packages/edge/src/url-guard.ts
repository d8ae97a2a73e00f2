// Refuses a malformed URL (bad percent-encoding, NUL and control characters, `.`/`..` segments, odd query strings)
// before any route sees it: every HTTP host of the platform, gateway and standalone subgraph services alike.
import type { NextFunction, Request, Response } from 'express';
import { parsedUrl, type ParsedUrl } from './parsed-request';

/**
 * Express middleware: every request's path and query string are parsed (`parsedUrl`) or refused with `onError`
 * (BAD_REQUEST, the host's envelope), and `req.query` becomes that parsed value, so handlers that read it see what
 * the cache key and Apollo see.
 */
export function urlGuard(onError: (res: Response, err: unknown) => void) {
  return (req: Request, res: Response, next: NextFunction) => {
    let url: ParsedUrl;
    try {
      url = parsedUrl(req);
    } catch (err) {
      return onError(res, err);
    }
    // Express 5 re-parses the URL with qs on every read of `req.query` (a getter): this own value shadows it.
    Object.defineProperty(req, 'query', { value: url.query, enumerable: true, configurable: true, writable: true });
    next();
  };
}
