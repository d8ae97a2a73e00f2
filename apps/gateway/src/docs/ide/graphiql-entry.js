// GraphiQL page script (bundled by bundle-ide.mjs at build time, served from /docs/assets; no CDN). Queries and
// mutations go over HTTP POST /graphql; subscriptions over graphql-ws at the same path, with the Headers tab's
// `authorization` / `x-api-key` passed as connectionParams (D9: the server reads them there, not from HTTP headers).
import { createGraphiQLFetcher } from '@graphiql/toolkit';
import { GraphiQL } from 'graphiql';
import 'graphiql/style.css';
import { getOperationAST, parse } from 'graphql';
import { createClient } from 'graphql-ws';
import { createElement } from 'react';
import { createRoot } from 'react-dom/client';

const httpUrl = new URL('/graphql', location.href).toString();
const wsUrl = httpUrl.replace(/^http/, 'ws');
const http = createGraphiQLFetcher({ url: httpUrl });

/** One graphql-ws client per set of credentials; a changed header opens a new connection. */
const clients = new Map();
function wsClient(headers) {
  const lower = Object.fromEntries(Object.entries(headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
  const params = {};
  if (lower['x-api-key']) params['x-api-key'] = lower['x-api-key'];
  if (lower.authorization) params.authorization = lower.authorization;
  const key = JSON.stringify(params);
  if (!clients.has(key)) clients.set(key, createClient({ url: wsUrl, connectionParams: params, lazy: true, retryAttempts: 0 }));
  return clients.get(key);
}

function isSubscription(params) {
  try {
    return getOperationAST(parse(params.query), params.operationName ?? undefined)?.operation === 'subscription';
  } catch {
    return false;
  }
}

function fetcher(params, options) {
  if (!isSubscription(params)) return http(params, options);
  return wsClient(options?.headers).iterate({ query: params.query, variables: params.variables ?? undefined, operationName: params.operationName ?? undefined });
}

const defaultQuery = `# Content Platform GraphQL IDE.
# Paste a credential into the Headers tab below, e.g.
#   { "authorization": "Bearer <token from POST /app/v1/auth/login>" }
#   { "x-api-key": "cpk_live_…" }
# Subscriptions run over graphql-ws with the same headers as connectionParams.

query Organizations {
  organizations {
    data {
      id
      name
    }
  }
}
`;

createRoot(document.getElementById('graphiql')).render(
  createElement(GraphiQL, { fetcher, defaultQuery, defaultEditorToolsVisibility: 'headers', shouldPersistHeaders: false }),
);
