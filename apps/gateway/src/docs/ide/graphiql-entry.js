// GraphiQL page script (bundled by bundle-ide.mjs at build time, served from /docs/assets; no CDN). Queries and
// mutations go over HTTP POST /graphql; subscriptions over graphql-ws at the same path, with the Headers tab's
// `authorization` / `x-api-key` passed as connectionParams (the server reads them there, not from HTTP headers).
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
  if (!clients.has(key))
    clients.set(key, createClient({ url: wsUrl, connectionParams: params, lazy: true, retryAttempts: 0 }));
  return clients.get(key);
}

/**
 * The operation to run. GraphiQL derives `operationName` from the editor after a debounce, so right after an edit it may
 * still name an operation the document no longer holds; a document with a single operation then runs that one.
 */
function operationOf(params) {
  try {
    const document = parse(params.query);
    return getOperationAST(document, params.operationName ?? undefined) ?? getOperationAST(document);
  } catch {
    return null;
  }
}

function fetcher(params, options) {
  const operation = operationOf(params);
  const request = operation ? { ...params, operationName: operation.name?.value ?? null } : params;
  if (operation?.operation !== 'subscription') return http(request, options);
  return wsClient(options?.headers).iterate({
    query: request.query,
    variables: request.variables ?? undefined,
    operationName: request.operationName ?? undefined,
  });
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
  createElement(GraphiQL, {
    fetcher,
    defaultQuery,
    defaultEditorToolsVisibility: 'headers',
    shouldPersistHeaders: false,
  }),
);
