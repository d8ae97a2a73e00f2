// The gateway's error answers: `@cp/edge`'s writer with the request scope's facts and logger by default.
import type { Logger } from '@cp/config';
import { writeError as writeEnvelope } from '@cp/edge';
import type { EdgeContext } from '@cp/errors';
import type { ServerResponse } from 'node:http';
import { currentScope, edgeContext } from './request-scope';

export interface ErrorWriting {
  /** GraphQL clients read `errors[]` (`@cp/edge`'s `graphqlErrorBody`); the status still follows the code. */
  graphql?: boolean;
  /**
   * The request's facts and logger; by default the request scope's (a request answered before Express passes its
   * own).
   */
  edge?: EdgeContext;
  logger?: Logger;
}

/** Every error answer of the gateway, REST and GraphQL alike, in the request's language and with its id. */
export function writeError(
  res: ServerResponse,
  err: unknown,
  { graphql = false, edge = edgeContext(), logger = currentScope()?.logger }: ErrorWriting = {},
): void {
  writeEnvelope(res, err, { graphql, edge, logger });
}

export const sendError = (res: ServerResponse, err: unknown): void => writeError(res, err);
export const sendGraphQLError = (res: ServerResponse, err: unknown): void => writeError(res, err, { graphql: true });
