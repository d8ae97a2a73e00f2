// Who is calling a standalone subgraph service: our gateway (signed principal header) or any federation gateway
// forwarding the client's own `Authorization: Bearer` / `x-api-key` (both checked by `@cp/auth`).
import { httpCredentials } from '@cp/auth';
import type { RateLimiter } from '@cp/edge';
import { UnauthorizedError } from '@cp/errors';
import type { Authenticated, Authenticator } from '@cp/graphql';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { NextFunction, Request, Response } from 'express';
import { Kind, parse, type OperationDefinitionNode } from 'graphql';

export type { Authenticator } from '@cp/graphql';
export type { GatewayVouch } from '@cp/auth';

/** `gateway`: our gateway vouched (and already applied limits); `credentials`: authenticated here; `anonymous`. */
export type Caller = Authenticated;

/**
 * Our gateway's principal header (bound to this subgraph and this request's X-Request-ID), checked before the body is
 * read; undefined without one, 401 when bad. The request's credentials are read here, once, for `callerMiddleware`.
 */
export async function gatewayCaller(
  req: Request,
  res: Response,
  em: EntityManager,
  auth: Authenticator,
): Promise<Caller | undefined> {
  const credentials = (res.locals.credentials = httpCredentials(req.headers));
  if (credentials.signed === undefined) return undefined;
  return auth.authenticate(em, credentials);
}

/**
 * What an anonymous caller may send straight to a subgraph: `_service { sdl }` (what a gateway needs to compose;
 * the SDL is committed in `schema/` anyway) and the `login` mutation (sign-in has no credential yet; it spends the
 * anonymous budget of the caller's address). Everything else, introspection included, is 401.
 */
const ANONYMOUS_FIELDS: Record<string, Set<string>> = {
  query: new Set(['_service', '__typename']),
  mutation: new Set(['login', '__typename']),
};

export function anonymousAllowed(body: unknown): boolean {
  const { query, operationName } = (body ?? {}) as { query?: unknown; operationName?: unknown };
  if (typeof query !== 'string') return false;
  let operations: OperationDefinitionNode[];
  try {
    operations = parse(query).definitions.filter(
      (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
    );
  } catch {
    return false;
  }
  const operation =
    typeof operationName === 'string'
      ? operations.find((o) => o.name?.value === operationName)
      : operations.length === 1
        ? operations[0]
        : undefined;
  const allowed = operation && ANONYMOUS_FIELDS[operation.operation];
  if (!operation || !allowed) return false;
  return operation.selectionSet.selections.every((s) => s.kind === Kind.FIELD && allowed.has(s.name.value));
}

/**
 * Express middleware before Apollo: identifies the caller into `res.locals.caller`, refuses anonymous documents
 * beyond `anonymousAllowed`, and spends the caller's rate-limit budget unless our gateway already did.
 */
export function callerMiddleware(options: {
  fork: () => EntityManager;
  auth: Authenticator;
  limiter: RateLimiter;
  onError: (res: Response, err: unknown) => void;
  /** Plain HTTP routes check the body-less request only (no GraphQL document to inspect). */
  graphql: boolean;
}) {
  const limited = options.limiter.middleware(options.onError);
  const onAuthFailure = options.limiter.onAuthFailure(options.onError);
  return async (req: Request, res: Response, next: NextFunction) => {
    const em = options.fork();
    let caller: Caller;
    try {
      // A principal header may have been checked already, before the body was read (`gatewayCaller`). A signed
      // principal wins (our gateway authenticated and rate-limited already); else the client's own credentials.
      caller =
        (res.locals.caller as Caller | undefined) ??
        (await options.auth.authenticate(em, res.locals.credentials ?? httpCredentials(req.headers)));
    } catch (err) {
      return onAuthFailure(res, err);
    }
    if (caller.via === 'anonymous' && !(options.graphql && anonymousAllowed(req.body))) {
      return onAuthFailure(
        res,
        new UnauthorizedError('Send a bearer token or an API key (or come through a gateway that does).'),
      );
    }
    res.locals.caller = caller;
    res.locals.em = em;
    // `res.locals.context` is what the shared limiter reads.
    res.locals.context = { principal: caller.principal };
    if (caller.via === 'gateway') return next();
    await limited(req, res, next);
  };
}
