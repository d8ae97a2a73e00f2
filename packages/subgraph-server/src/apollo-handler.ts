// /graphql's last stage on every host, the gateway's and a subgraph service's: Apollo runs the request's one parsed
// value and answers through the response seam.
import { HeaderMap, type ApolloServer, type BaseContext, type HTTPGraphQLRequest } from '@apollo/server';
import { graphqlSearch, parsedUrl, respond } from '@cp/edge';
import type { Request, Response } from 'express';

/**
 * In place of `expressMiddleware`, which would read the URL again with its own parser and end the response itself:
 * Apollo gets the JSON body of a POST or the parameters of a GET that the cache key and the input guard read
 * (`@cp/edge` parsed-request), the context the pipeline built (`res.locals.context`), and its answer goes out through
 * `respond`, so the stages' steps (size limit, cache fill, idempotency record) see it whole.
 */
export function apolloHandler<TContext extends BaseContext>(apollo: ApolloServer<TContext>) {
  apollo.assertStarted('apolloHandler()');
  return async (req: Request, res: Response) => {
    const headers = new HeaderMap();
    for (const [name, value] of Object.entries(req.headers))
      if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
    const method = req.method.toUpperCase();
    const httpGraphQLRequest: HTTPGraphQLRequest = {
      method,
      headers,
      search: method === 'GET' ? graphqlSearch(parsedUrl(req).query) : '',
      body: req.body,
    };
    const answer = await apollo.executeHTTPGraphQLRequest({
      httpGraphQLRequest,
      context: async () => res.locals.context as TContext,
    });
    for (const [name, value] of answer.headers) res.setHeader(name, value);
    res.statusCode = answer.status ?? 200;
    if (answer.body.kind === 'complete') return respond(res, answer.body.string);
    // An incremental answer (`@defer`) is sent whole: every step needs the complete body.
    const chunks: string[] = [];
    for await (const chunk of answer.body.asyncIterator) chunks.push(chunk);
    respond(res, chunks.join(''));
  };
}
