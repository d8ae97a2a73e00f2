// Builds the per-request GraphQL context: a forked EntityManager, the authenticated principal, request facts.
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { clientCredentials, httpCredentials, type Authentication } from '@cp/auth';
import { edgeContext, keepPrivate } from '@cp/edge';
import { visibilityOf, type Authenticated, type Context, type ProjectDirectory } from '@cp/graphql';
import type { NextFunction, Request, Response } from 'express';

export interface ContextDeps {
  orm: MikroORM;
  auth: Authentication;
  projects: ProjectDirectory;
}

/**
 * The request's context for `principal`. Authentication only borrowed a connection (the root EntityManager's); the
 * request's own fork is made when a stage first asks for it, so a request answered before execution (a refusal, a
 * cache hit, a 304) never builds a unit of work.
 */
export function contextFor(deps: ContextDeps, principal: Context['principal']): Context {
  const { requestId, lang } = edgeContext();
  let em: EntityManager | undefined;
  return {
    get em() {
      return (em ??= deps.orm.em.fork());
    },
    principal,
    requestId,
    lang,
    projects: deps.projects,
  };
}

/**
 * Authenticates once per request (the gateway takes no signed principal from clients: only theirs,
 * `clientCredentials`) and keeps the context in `res.locals.context`; `onError` answers a bad credential. A preview
 * key's answers, whatever they turn out to be, are private from here on. A principal memory holds goes on at once.
 */
export function contextMiddleware(deps: ContextDeps, onError: (res: Response, err: unknown) => void) {
  return (req: Request, res: Response, next: NextFunction) => {
    // Read once; a long-lived stream keeps them to authenticate its caller again (access-watch.ts).
    const credentials = (res.locals.credentials = clientCredentials(httpCredentials(req.headers)));
    const proceed = ({ principal }: Authenticated) => {
      res.locals.context = contextFor(deps, principal);
      if (principal.kind === 'apiKey' && visibilityOf(principal) === 'preview') keepPrivate(res);
      next();
    };
    let authenticated: Authenticated | Promise<Authenticated>;
    try {
      authenticated = deps.auth.authenticate(deps.orm.em, credentials);
    } catch (err) {
      return onError(res, err);
    }
    if (authenticated instanceof Promise) authenticated.then(proceed, (err) => onError(res, err)).catch(next);
    else proceed(authenticated);
  };
}
