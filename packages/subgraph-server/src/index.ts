// Runs one subgraph as its own HTTP service behind a remote gateway (`SUBGRAPH_URLS`); the gateway authenticates.
import 'reflect-metadata';
import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import { createLogger, DEFAULT_SUBGRAPH_PORTS, loadConfig, loadJwtSecret, type Config, type SubgraphName } from '@cp/config';
import { createBroker, EventDispatcher, onEventsCommitted, openDatabase, sqlProjectDirectory, type DatabaseModule } from '@cp/db';
import { formatGraphQLError, isInternal, negotiateLanguage } from '@cp/errors';
import { PRINCIPAL_HEADER, verifyPrincipal, type BuiltSubgraph, type Context } from '@cp/graphql';
import { randomUUID } from 'node:crypto';

export interface SubgraphService {
  name: SubgraphName;
  database: DatabaseModule;
  build(config: Config): Promise<BuiltSubgraph>;
}

/** Starts the subgraph on `SUBGRAPH_PORT` (or its default port); returns its URL. */
export async function runSubgraphService(service: SubgraphService): Promise<{ url: string; stop(): Promise<void> }> {
  const config = loadConfig();
  const logger = createLogger(config, `subgraph-${service.name}`);
  const secret = loadJwtSecret(config);
  const db = await openDatabase({ config, modules: [service.database], logger });
  const projects = sqlProjectDirectory(db.orm);
  // Events this service writes get their positions right after commit, not at the gateway's next poll.
  const broker = await createBroker({ redisUrl: config.redisUrl, natsUrl: config.natsUrl, databaseUrl: config.database.url, logger });
  const dispatcher = new EventDispatcher(db.orm, broker, logger).start();
  onEventsCommitted(db.orm.em, () => dispatcher.kick());
  const { schema } = await service.build(config);
  const server = new ApolloServer<Context>({
    schema,
    includeStacktraceInErrorResponses: false,
    formatError(formatted, error) {
      // Codes and details pass through to the gateway; HTTP status stays 200 (stack-facts pitfall 1).
      const result = formatGraphQLError(formatted, error, { requestId: 'subgraph', lang: 'en', variablesFrom: 'body' });
      if (isInternal(result)) logger.error({ err: error }, 'unexpected error');
      return result;
    },
  });
  const port = config.subgraphPort ?? DEFAULT_SUBGRAPH_PORTS[service.name];
  const { url } = await startStandaloneServer(server, {
    listen: { port, host: config.http.host },
    context: async ({ req }) => {
      const header = (name: string) => {
        const value = req.headers[name];
        return Array.isArray(value) ? value[0] : value;
      };
      return {
        em: db.orm.em.fork(),
        principal: await verifyPrincipal(header(PRINCIPAL_HEADER), secret),
        requestId: header('x-request-id') ?? randomUUID(),
        lang: negotiateLanguage(header('accept-language')),
        projects,
      };
    },
  });
  logger.info({ url }, `subgraph ${service.name} listening`);
  return {
    url,
    async stop() {
      await server.stop();
      await dispatcher.stop();
      await broker.close();
      await db.close();
    },
  };
}

/** Entry point helper for `subgraphs/<name>/src/main.ts`. */
export function main(service: SubgraphService): void {
  runSubgraphService(service).then(
    ({ stop }) => {
      for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void stop().then(() => process.exit(0)));
    },
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
