// The floor under W2a for this architecture: bare node:http in front of what the admin read cannot leave out, the
// content subgraph's resolvers executing the REST route's GraphQL operation (graphql-js, type-graphql) over MikroORM,
// with the caller authenticated from the principal cache. No Express, no middleware, no gateway, no REST shaping.
// `bench/client-reads.mjs` runs W2a's load against it (`W2a-arch-floor`) on the database the gateway seeded.
// `DATABASE_URL=… DATA_DIR=… JWT_SECRET=… PORT=… node bench/read-arch-floor-server.mjs` logs `{"url":…}` when listening.
import { clientCredentials, createAuthentication, httpCredentials } from '@cp/auth';
import { createLogger, loadConfig, loadJwtSecret } from '@cp/config';
import { openDatabase, sqlProjectDirectory } from '@cp/db';
import { INITIAL_DATA, restApi, subgraphModules } from '@cp/supergraph';
import { execute, print } from 'graphql';
import { createRequire } from 'node:module';
import { serveAdminRead } from './lib.mjs';

// The operation the REST route sends (sofa's builder over the same models), built here on the content subgraph.
const { operationFor } = createRequire(import.meta.url)('../packages/rest/dist/rest-operations.js');

const config = loadConfig(process.env);
const logger = createLogger(config);
const modules = subgraphModules();
const db = await openDatabase({ config, modules: modules.map((m) => m.database), logger, initialData: INITIAL_DATA });
const secret = loadJwtSecret(config);
const auth = createAuthentication(config, secret, { cacheTtlSeconds: config.auth.cacheTtlSeconds });
const content = modules.find((m) => m.name === 'content');
const { schema } = await content.build({ config, secret, auth, logger, orm: db.orm });
const document = operationFor(schema, 'Query.content', restApi().shape);
const projects = sqlProjectDirectory(db.orm);
if (process.env.PRINT_OPERATION) console.error(print(document));
serveAdminRead(
  async ({ organizationId, projectId, id }, headers) => {
    const em = db.orm.em.fork();
    const { principal } = await auth.authenticate(em, clientCredentials(httpCredentials(headers)));
    const result = await execute({
      schema,
      document,
      variableValues: { organizationId, projectId, id },
      contextValue: { em, principal, requestId: 'floor', lang: 'en', projects },
    });
    if (result.errors) throw result.errors[0];
    return result.data.content ?? undefined;
  },
  () => db.close(),
);
