// Public documentation routes: the OpenAPI documents of both REST families, /docs (Swagger UI) and the GraphQL IDE.
import type { Config } from '@cp/config';
import type { ApiFamily, RestApi } from '@cp/graphql';
import type { HttpRoute } from '@cp/host';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type { GraphQLSchema } from 'graphql';
import { dirname, join } from 'node:path';
import { BASE_PATHS, buildOpenApiDocument, type OpenApiDocument } from '@cp/rest';
import { docsPage, graphiqlPage } from './pages';

export interface DocsOptions {
  config: Config;
  schema: GraphQLSchema;
  api: RestApi;
  httpRoutes: readonly HttpRoute<never>[];
  version: string;
}

const SWAGGER_UI_DIR = dirname(require.resolve('swagger-ui-dist/package.json'));
/** Written by bundle-ide.mjs next to the compiled code (dist/docs/assets). */
const IDE_ASSETS_DIR = join(__dirname, 'assets');
const STATIC = { maxAge: '1h', index: false, fallthrough: false } as const;

export function mountDocs(app: Express, options: DocsOptions): void {
  const documents = new Map<ApiFamily, OpenApiDocument>();
  for (const family of ['app', 'api'] as const) {
    app.get(`${BASE_PATHS[family]}/openapi.json`, (_req: Request, res: Response) => {
      // Built on first request: it costs start-up nothing and the schema does not change while running.
      if (!documents.has(family)) {
        documents.set(
          family,
          buildOpenApiDocument({
            family,
            schema: options.schema,
            api: options.api,
            httpRoutes: options.httpRoutes,
            version: options.version,
            publicUrl: options.config.http.publicUrl,
          }),
        );
      }
      res.json(documents.get(family));
    });
  }
  app.get('/docs', (_req: Request, res: Response) => res.type('html').send(docsPage()));
  app.use('/docs/assets/swagger-ui', express.static(SWAGGER_UI_DIR, STATIC));
  if (!options.config.graphqlIde) return;
  app.use('/docs/assets', express.static(IDE_ASSETS_DIR, STATIC));
  app.get('/graphql', (req: Request, res: Response, next: NextFunction) => {
    if (!wantsIde(req)) return next();
    res.type('html').send(graphiqlPage());
  });
}

/**
 * A browser navigating to /graphql: it asks for HTML and sends no operation. GraphQL over GET (`?query=` or APQ's
 * `?extensions=`) and every API client (JSON, `*\/*`) still reach Apollo.
 */
export function wantsIde(req: Request): boolean {
  if (req.query.query !== undefined || req.query.extensions !== undefined) return false;
  const accept = req.header('accept') ?? '';
  return (
    accept.includes('text/html') &&
    req.accepts(['text/html', 'application/json', 'application/graphql-response+json']) === 'text/html'
  );
}
