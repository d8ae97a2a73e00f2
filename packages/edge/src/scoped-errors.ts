// Error answers in the request's scope: the error writer with the scope's facts (id, language) and logger.
import { writeError } from './error-writer';
import type { ServerResponse } from 'node:http';
import { currentScope, edgeContext } from './request-scope';

/** Every error answer under `requestScope`, REST and GraphQL alike, in the request's language and with its id. */
const answer = (graphql: boolean) => (res: ServerResponse, err: unknown) =>
  writeError(res, err, { graphql, edge: edgeContext(), logger: currentScope()?.logger });

export const sendError = answer(false);
/** GraphQL clients read refusals in `errors[]`; the HTTP status still follows the code. */
export const sendGraphQLError = answer(true);
