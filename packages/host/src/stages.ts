// A chain of request stages as one Express handler: the router matches one layer instead of one per stage, and each
// stage's `next` calls the following one directly.
import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * Runs `handlers` in order, as `app.use(path, ...handlers)` would: a stage that answers doesn't call `next`; an error
 * (passed to `next`, thrown, or a rejected promise) goes to Express's error handler; past the last stage, the
 * router goes on.
 */
export function stages(...handlers: RequestHandler[]): RequestHandler {
  return (req: Request, res: Response, done: NextFunction) => {
    let at = 0;
    const next: NextFunction = (err?: unknown) => {
      if (err !== undefined && err !== null) return done(err);
      const handler = handlers[at++];
      if (!handler) return done();
      try {
        const returned = handler(req, res, next) as unknown;
        if (returned instanceof Promise) returned.catch(done);
      } catch (thrown) {
        done(thrown);
      }
    };
    next();
  };
}
