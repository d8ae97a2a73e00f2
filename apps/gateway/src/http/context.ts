// Builds the per-request GraphQL context: a forked EntityManager, the authenticated principal, request facts.
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { visibilityOf, type Context, type ProjectDirectory } from '@cp/graphql';
import { clientCredentials, httpCredentials, type Authentication, type Credentials } from '@cp/auth';
import type { NextFunction, Request, Response } from 'express';
import { keepPrivate } from './api-headers';
import { edgeContext } from './request-scope';

export interface ContextDeps {
  orm: MikroORM;
  auth: Authentication;
  projects: ProjectDirectory;
}

/**
 * The gateway takes no signed principal from clients: only theirs (`clientCredentials`). Authentication only borrows a
 * connection (the root EntityManager's); the request's own fork is made when a stage first asks for it, so a request
 * answered before execution (a refusal, a cache hit, a 304) never builds a unit of work.
 */
export async function buildContext(deps: ContextDeps, credentials: Credentials): Promise<Context> {
  const { principal } = await deps.auth.authenticate(deps.orm.em, credentials);
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
 * Authenticates once per request and keeps the context in `res.locals.context`; `onError` answers a bad credential.
 * A preview key's answers, whatever they turn out to be, are private from here on.
 */
export function contextMiddleware(deps: ContextDeps, onError: (res: Response, err: unknown) => void) {
  return async (req: Request, res: Response, next: NextFunction) => {
    let context: Context;
    // Read once; a long-lived stream keeps them to authenticate its caller again (access-watch.ts).
    const credentials = (res.locals.credentials = clientCredentials(httpCredentials(req.headers)));
    try {
      context = res.locals.context = await buildContext(deps, credentials);
    } catch (err) {
      onError(res, err);
      return;
    }
    if (context.principal.kind === 'apiKey' && visibilityOf(context.principal) === 'preview') keepPrivate(res);
    next();
  };
}
