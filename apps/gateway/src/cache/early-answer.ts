// Answers given in front of Express (cached reads, admin entry reads): what the skipped middleware would have done for
// them, the caller's rate limit, then the answer.
import type { Logger } from '@cp/config';
import type { RateLimiter } from '@cp/edge';
import type { ApiKeyPrincipal, UserPrincipal } from '@cp/graphql';
import { observeRequest } from '@cp/metrics';
import type { Response } from 'express';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { framed, setApiHeaders } from '../http/api-headers';
import { writeError } from '../http/send-error';
import { requestFacts, requestLanguage } from '../http/request-scope';

export class EarlyAnswers {
  constructor(
    private readonly limiter: Pick<RateLimiter, 'admit'>,
    private readonly logger: Logger,
  ) {}

  /**
   * Request metrics, request id and language, API headers (the middleware in front of every API route), then the
   * rate limit: `send` runs once the caller's budget admitted the request. A refusal (429) goes out in the caller's
   * shape, an unexpected failure as the edge's envelope, as Express's handler sends it.
   */
  answer(
    req: IncomingMessage,
    res: ServerResponse,
    principal: ApiKeyPrincipal | UserPrincipal,
    shape: 'rest' | 'graphql',
    send: (res: ServerResponse) => void,
    lang = requestLanguage(req),
  ): void {
    const facts = requestFacts(req, res, lang);
    observeRequest(req, res);
    setApiHeaders(res, framed(req));
    const edge = { ...facts, variablesFrom: shape === 'rest' ? 'query' : 'body' } as const;
    const fail = (response: ServerResponse, err: unknown, graphql: boolean) =>
      writeError(response, err, { graphql, edge, logger: this.logger });
    // Express's types, Node's objects: `admit` only uses what `http` provides (headers, status, end).
    this.limiter
      .admit(principal, res as Response, (response, err) => fail(response, err, shape === 'graphql'))
      .then((admitted) => {
        if (admitted) send(res);
      })
      .catch((err: unknown) => fail(res, err, false));
  }
}
