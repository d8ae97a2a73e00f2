// A chain of request stages as one Express handler: the router matches one layer instead of one per stage, and each
// stage's `next` calls the following one directly.
import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * Runs `handlers` in order, as `app.use(path, ...handlers)` would: a stage that answers doesn't call `next`;
 * `next('route')` goes on to the next stage and `next('router')` leaves the router; an error (passed to `next`,
 * thrown, or a rejected promise, whatever its reason) goes to Express's error handler; past the last stage, the router
 * goes on.
 */
export function stages(...handlers: RequestHandler[]): RequestHandler {
  return (req: Request, res: Response, done: NextFunction) => {
    let at = 0;
    const next: NextFunction = (err?: unknown) => {
      if (err === 'router' || (err && err !== 'route')) return done(err);
      const handler = handlers[at++];
      if (!handler) return done();
      try {
        const returned = handler(req, res, next) as unknown;
        // Express's own test for a promise: anything with a `then`.
        if (isThenable(returned)) returned.then(undefined, (error) => done(error || new Error('Rejected promise')));
      } catch (thrown) {
        done(thrown);
      }
    };
    next();
  };
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as PromiseLike<unknown>).then === 'function';
}
