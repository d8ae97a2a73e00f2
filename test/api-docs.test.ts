// OpenAPI documents of both REST families (valid, complete, true to the running service), /docs and the GraphQL IDE.
import { allRoutes, BASE_PATHS, documentFamily, gatewayHttpRoutes, openApiPath, SUBGRAPHS } from '@cp/gateway';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, PROJECT } from './support/client';
import { startService, type TestService } from './support/service';

type Doc = { paths: Record<string, Record<string, any>>; components: Record<string, any>; [k: string]: any };
const FAMILIES = ['app', 'api'] as const;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

let service: TestService;
let client: Client;
let token: string;
let apiKey: string;
const docs = {} as Record<(typeof FAMILIES)[number], Doc>;

beforeAll(async () => {
  service = await startService();
  client = new Client(service.url);
  token = await client.login();
  const key = await client.call('POST', `/app/v1${PROJECT}/api-keys`, { token, body: { name: 'docs contract' } });
  apiKey = key.body.key;
  for (const family of FAMILIES) {
    const res = await fetch(`${service.url}/${family}/v1/openapi.json`);
    expect(res.status).toBe(200);
    docs[family] = (await res.json()) as Doc;
  }
}, 120_000);

afterAll(() => service?.destroy());

function operations(doc: Doc) {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((method) => ({ path, method, op: item[method] })),
  );
}

describe('OpenAPI documents', () => {
  it.each(FAMILIES)('%s document is valid OpenAPI with every $ref resolvable', async (family) => {
    const doc = docs[family];
    // An ES module: loaded with import() from this CommonJS test file.
    const { Validator } = await import('@seriousme/openapi-schema-validator');
    const result = await new Validator().validate(structuredClone(doc));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    const refs = new Set<string>();
    JSON.stringify(doc, (k, v) => (k === '$ref' && refs.add(v), v));
    for (const ref of refs) {
      const target = ref
        .slice(2)
        .split('/')
        .reduce<any>((o, part) => o?.[part], doc);
      expect(target, ref).toBeDefined();
    }
  });

  it('declares bearer JWT for /app/v1 and x-api-key for /api/v1; sign-in and the CDN need none', () => {
    expect(docs.app.components.securitySchemes.bearerAuth).toMatchObject({
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
    });
    expect(docs.app.security).toEqual([{ bearerAuth: [] }]);
    expect(docs.api.components.securitySchemes.apiKey).toMatchObject({
      type: 'apiKey',
      in: 'header',
      name: 'x-api-key',
    });
    expect(docs.api.security).toEqual([{ apiKey: [] }]);
    expect(docs.app.paths['/app/v1/auth/login'].post.security).toEqual([]);
    expect(docs.api.paths['/cdn/{organizationId}/{projectId}/assets/{assetId}/{filename}'].get.security).toEqual([]);
  });

  it('documents the error envelope as error response of every operation, and the bounds of list parameters', () => {
    for (const family of FAMILIES) {
      const envelope = docs[family].components.schemas.ErrorEnvelope;
      expect(envelope.properties.error.required).toEqual(['code', 'message']);
      for (const { path, method, op } of operations(docs[family])) {
        for (const status of ['400', '404', '500']) {
          // A GraphQL endpoint (the typed one per project) documents `errors[]` instead, with the code in extensions.
          if (op['x-graphql-errors']) {
            const schema = op.responses[status]?.content['application/json'].schema;
            expect(
              schema.properties.errors.items.properties.extensions.required,
              `${method} ${path} ${status}`,
            ).toEqual(['code']);
            continue;
          }
          expect(op.responses[status], `${method} ${path} ${status}`).toEqual({
            $ref: `#/components/responses/Error${status}`,
          });
        }
        const limit = (op.parameters ?? []).find((p: any) => p.in === 'query' && p.name === 'limit');
        if (limit) expect(limit.schema, `${method} ${path}`).toMatchObject({ minimum: 1, maximum: 100, default: 20 });
      }
      expect(docs[family].components.responses.Error422.content['application/json'].schema).toEqual({
        $ref: '#/components/schemas/ErrorEnvelope',
      });
    }
  });

  it('documents multipart uploads, the SSE event routes and the CDN route', () => {
    const upload = docs.app.paths[`/app/v1/organizations/{organizationId}/projects/{projectId}/assets`].post;
    expect(upload.requestBody.content['multipart/form-data'].schema.properties.file).toMatchObject({
      type: 'string',
      format: 'binary',
    });
    for (const family of FAMILIES) {
      const events = docs[family].paths[`/${family}/v1/organizations/{organizationId}/projects/{projectId}/events`].get;
      expect(Object.keys(events.responses['200'].content)).toEqual(['application/json', 'text/event-stream']);
    }
    const cdn = docs.api.paths['/cdn/{organizationId}/{projectId}/assets/{assetId}/{filename}'].get;
    expect(Object.keys(cdn.responses)).toEqual(expect.arrayContaining(['200', '206', '304', '404']));
  });

  it('documents every route that exists: routes.ts of each subgraph and the HTTP routes', () => {
    const missing: string[] = [];
    for (const [field, byFamily] of Object.entries(allRoutes())) {
      for (const family of FAMILIES) {
        const route = byFamily[family];
        if (!route) continue;
        const path = BASE_PATHS[family] + openApiPath(route.path);
        if (!docs[family].paths[path]?.[route.method.toLowerCase()])
          missing.push(`${family} ${route.method} ${path} (${field})`);
      }
    }
    // The HTTP routes the gateway mounts: the subgraph modules' (uploads, CDN; public ones live in the client
    // document) and its event routes.
    const httpRoutes = gatewayHttpRoutes(SUBGRAPHS);
    expect(httpRoutes.length).toBeGreaterThan(0);
    for (const route of httpRoutes) {
      const family = documentFamily(route);
      if (!docs[family].paths[openApiPath(route.path)]?.[route.method])
        missing.push(`${family} ${route.method} ${route.path} (HTTP route)`);
    }
    expect(missing).toEqual([]);
  });
});

/** Fills path parameters with ids that exist nowhere: every call reaches its handler and none changes data. */
const DUMMY = '00000000-0000-4000-8000-000000000000';
function concrete(path: string) {
  return path.replace(/\{(\w+)\}/g, (_m, name: string) =>
    name === 'version' ? '9.9.9' : name === 'resourceType' ? 'content' : DUMMY,
  );
}

/** A pooled keep-alive socket the server closed while idle fails the first reuse: retry that one case. */
async function fetchOnce(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (err) {
    if ((err as { cause?: { code?: string } }).cause?.code !== 'UND_ERR_SOCKET') throw err;
    return fetch(url, init);
  }
}

describe('contract: every documented operation exists on the running service', () => {
  it.each(FAMILIES)(
    '%s: no documented operation answers "No route"; each status is documented; errors use the envelope',
    async (family) => {
      const problems: string[] = [];
      for (const { path, method, op } of operations(docs[family])) {
        const headers: Record<string, string> = {};
        if (op.security?.length !== 0) {
          if (family === 'app') headers.authorization = `Bearer ${token}`;
          else headers['x-api-key'] = apiKey;
        }
        let body: RequestInit['body'];
        const content = op.requestBody?.content ?? {};
        if (content['application/json']) {
          headers['content-type'] = 'application/json';
          body = '{}';
        } else if (content['multipart/form-data']) {
          const form = new FormData();
          form.set('file', new Blob(['contract']), 'contract.txt');
          body = form;
        }
        const res = await fetchOnce(`${service.url}${concrete(path)}`, { method: method.toUpperCase(), headers, body });
        const text = await res.text();
        const label = `${method.toUpperCase()} ${path} → ${res.status} ${text.slice(0, 160)}`;
        if (res.status === 404 && text.includes('No route')) problems.push(`undocumented handler missing: ${label}`);
        if (!op.responses[String(res.status)]) problems.push(`status not documented: ${label}`);
        if (res.status >= 500) problems.push(`server error: ${label}`);
        if (res.status >= 400) {
          const parsed = JSON.parse(text);
          const error = op['x-graphql-errors']
            ? { ...parsed?.errors?.[0], ...parsed?.errors?.[0]?.extensions }
            : parsed?.error;
          if (typeof error?.code !== 'string' || typeof error.message !== 'string')
            problems.push(`not the error envelope: ${label}`);
        }
      }
      expect(problems).toEqual([]);
    },
    120_000,
  );
});

describe('/docs and the GraphQL IDE', () => {
  it('serves the documents and /docs without credentials, with local assets only', async () => {
    const page = await fetch(`${service.url}/docs`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('/app/v1/openapi.json');
    expect(html).toContain('/api/v1/openapi.json');
    for (const src of html.matchAll(/(?:src|href)="([^"]+)"/g)) {
      expect(src[1].startsWith('/docs/assets/'), src[1]).toBe(true);
      expect((await fetch(`${service.url}${src[1]}`)).status).toBe(200);
    }
  });

  it('answers a browser at GET /graphql with GraphiQL, and GraphQL over GET and API clients with JSON', async () => {
    const browser = await fetch(`${service.url}/graphql`, {
      headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
    });
    expect(browser.status).toBe(200);
    const html = await browser.text();
    expect(html).toContain('/docs/assets/graphiql.js');
    expect((await fetch(`${service.url}/docs/assets/graphiql.js`)).status).toBe(200);
    const overGet = await fetch(`${service.url}/graphql?query=${encodeURIComponent('{ __typename }')}`, {
      headers: {
        accept: 'text/html,application/json;q=0.9',
        'apollo-require-preflight': 'true',
        authorization: `Bearer ${token}`,
      },
    });
    expect(overGet.headers.get('content-type')).toMatch(/json/);
    expect(await overGet.json()).toEqual({ data: { __typename: 'Query' } });
    const api = await fetch(`${service.url}/graphql`, { headers: { accept: '*/*' } });
    expect(api.headers.get('content-type')).not.toMatch(/html/);
  });
});

describe('GRAPHQL_IDE=off', () => {
  let off: TestService;
  beforeAll(async () => {
    off = await startService({ env: { NODE_ENV: 'production' } });
  }, 120_000);
  afterAll(() => off?.destroy());

  it('is the default in production: no HTML at /graphql, the API and /docs unchanged', async () => {
    const res = await fetch(`${off.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(res.headers.get('content-type')).not.toMatch(/html/);
    expect((await fetch(`${off.url}/docs/assets/graphiql.js`)).status).toBe(404);
    expect((await fetch(`${off.url}/docs`)).status).toBe(200);
  });
});
