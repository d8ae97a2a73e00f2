// Per-request facts (id, language, logger) reachable from code that gets no request object, such as formatError.
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { Logger } from '@cp/config';
import { sentRequestId } from './request-id';
import { negotiateLanguage, type EdgeContext } from '@cp/errors';
import type { NextFunction, Request, Response } from 'express';
import type { IncomingMessage } from 'node:http';

export interface RequestScope extends EdgeContext {
  logger: Logger;
}

const storage = new AsyncLocalStorage<RequestScope>();

export function currentScope(): RequestScope | undefined {
  return storage.getStore();
}

export function edgeContext(): EdgeContext {
  const scope = storage.getStore();
  return scope ?? { requestId: 'unknown', lang: 'en', variablesFrom: 'body' };
}

/** The language answers and error messages use. */
function requestLanguage(req: IncomingMessage): string {
  const header = req.headers['accept-language'];
  return negotiateLanguage(typeof header === 'string' ? header : undefined);
}

/** The request's facts, reachable through `edgeContext()`/`currentScope()` for the rest of its handling. */
export function requestScope(logger: Logger) {
  return (req: Request, res: Response, next: NextFunction) => {
    // A sane `X-Request-ID` is echoed, else one is made; answers are in the client's language. Both are sent back.
    const requestId = sentRequestId(req) ?? randomUUID();
    const lang = requestLanguage(req);
    res.setHeader('X-Request-ID', requestId);
    res.setHeader('Content-Language', lang);
    // Made on first use: most requests log nothing, and a pino child (bindings serialised, redaction) costs more
    // than the rest of this scope.
    let child: Logger | undefined;
    const scope: RequestScope = {
      requestId,
      lang,
      variablesFrom: req.method === 'GET' || req.method === 'HEAD' ? 'query' : 'body',
      get logger() {
        return (child ??= logger.child({ requestId }));
      },
    };
    storage.run(scope, next);
  };
}
