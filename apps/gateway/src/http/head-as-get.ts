// HEAD on a REST route is its GET without a body (RFC 9110): every later stage (cache, ETags, caching headers, the
// route) sees GET, and Node, which decided when the response was made that a HEAD answer has no body, sends none.
import type { NextFunction, Request, Response } from 'express';
import { apiMount } from './api-mount';

export function headAsGet(req: Request, _res: Response, next: NextFunction): void {
  if (req.method === 'HEAD') {
    const mount = apiMount(req);
    if (mount === '/app/v1' || mount === '/api/v1') req.method = 'GET';
  }
  next();
}
