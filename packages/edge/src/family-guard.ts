// The API family rule in front of every host's credential HTTP routes: `/app/v1` takes users, `/api/v1` API keys.
import { assertFamilyPrincipal, type ApiFamily, type Context } from '@cp/principal';
import type { NextFunction, Request, Response } from 'express';

/** After the context middleware: a principal of the other family's kind is answered 401 through `onError`. */
export function familyOnly(family: ApiFamily, onError: (res: Response, err: unknown) => void) {
  return (_req: Request, res: Response, next: NextFunction): void => {
    try {
      assertFamilyPrincipal(family, res.locals.context as Context);
    } catch (err) {
      return onError(res, err);
    }
    next();
  };
}
