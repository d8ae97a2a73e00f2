// Test support: the edge's REST chain (request scope, URL guard, REST handler, Apollo as its executor) over a small
// schema.
import { ApolloServer } from '@apollo/server';
import type { Logger } from '@cp/config';
import type { Context, Principal, RestRoutes } from '@cp/graphql';
import express, { type NextFunction, type Request, type Response } from 'express';
import { buildSchema } from 'graphql';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { readBody, requestScope, sendError, urlGuard } from '@cp/edge';
import { createRestHandler, type RestExecute } from './rest-handler';

/** Shaped like the subgraphs' types: a list with `pagination`, a `User` reference, a revision, create and update. */
const SDL = `
  enum Order { asc desc }
  type User { id: ID! email: String! }
  type Pagination { limit: Int! lastKey: String }
  type Thing { id: ID! name: String! revision: Int! createdBy: User! note: String }
  type ThingList { data: [Thing!]! pagination: Pagination! }
  input ThingInput { name: String! note: String }
  type Query {
    things(organizationId: ID!, limit: Int, order: Order, deleted: Boolean, score: Float, lastKey: String): ThingList!
    thing(organizationId: ID!, id: ID!): Thing!
  }
  type Mutation {
    createThing(organizationId: ID!, input: ThingInput!): Thing!
    updateThing(organizationId: ID!, id: ID!, input: ThingInput!, expectedRevision: Int): Thing!
  }
`;

export const THING_ROUTES: RestRoutes = {
  'Query.things': { app: { method: 'GET', path: '/organizations/:organizationId/things' } },
  'Query.thing': { app: { method: 'GET', path: '/organizations/:organizationId/things/:id' } },
  'Mutation.createThing': {
    app: { method: 'POST', path: '/organizations/:organizationId/things', responseStatus: 201 },
  },
  'Mutation.updateThing': { app: { method: 'PUT', path: '/organizations/:organizationId/things/:id' } },
};

export interface RestApp {
  url: string;
  /** Every operation's variables, as the resolvers received them, in order. */
  calls: { field: string; args: Record<string, unknown> }[];
  close(): Promise<void>;
}

const USER: Principal = { kind: 'user', userId: 'u1', organizationId: 'o1', permissions: {} as never };

/** Starts the chain on a free port; resolvers echo their arguments into the answers and record them in `calls`. */
export async function startRestApp(): Promise<RestApp> {
  const calls: RestApp['calls'] = [];
  const thing = (id: string, input: { name?: string; note?: string } = {}, revision = 1) => ({
    id,
    name: input.name ?? `thing ${id}`,
    revision,
    createdBy: { id: 'u1', email: 'u1@example.com' },
    note: input.note ?? null,
  });
  const rootValue = {
    things: (args: Record<string, unknown>) => {
      calls.push({ field: 'things', args });
      const limit = (args.limit as number | undefined) ?? 2;
      const data = Array.from({ length: limit }, (_, i) => thing(`t${i}`));
      return { data, pagination: { limit, lastKey: args.lastKey ?? null } };
    },
    thing: (args: { id: string }) => (calls.push({ field: 'thing', args }), thing(args.id)),
    createThing: (args: { input: { name: string } }) => {
      calls.push({ field: 'createThing', args });
      return thing('new', args.input);
    },
    updateThing: (args: { id: string; input: { name: string }; expectedRevision?: number }) => {
      calls.push({ field: 'updateThing', args });
      return thing(args.id, args.input, (args.expectedRevision ?? 1) + 1);
    },
  };
  const schema = buildSchema(SDL);
  const apollo = new ApolloServer<Context>({ schema, rootValue });
  await apollo.start();
  const logger = pino({ level: 'silent' }) as unknown as Logger;
  const app = express();
  app.use(requestScope(logger));
  app.use(urlGuard(sendError));
  app.use('/app/v1', (_req, res, next) => {
    res.locals.context = { principal: USER, requestId: 'r', lang: 'en' };
    next();
  });
  const execute: RestExecute = async (operation, variables, contextValue) => {
    const { query, operationName } = { query: operation.text, operationName: operation.name };
    const response = await apollo.executeOperation({ query, variables, operationName }, { contextValue });
    if (response.body.kind !== 'single') throw new Error('Incremental delivery is not supported over REST.');
    return response.body.singleResult;
  };
  const api = { routes: THING_ROUTES, shape: { models: ['User'] } };
  app.use('/app/v1', readBody(1 << 16), createRestHandler({ family: 'app', schema, api, execute }));
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => sendError(res, err));
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    close: async () => {
      await new Promise((resolve) => server.close(resolve));
      await apollo.stop();
    },
  };
}
