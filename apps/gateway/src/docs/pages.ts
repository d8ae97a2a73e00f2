// The HTML of /docs (Swagger UI over both OpenAPI documents) and of the GraphQL IDE (GraphiQL); assets are local.

const head = (title: string, css: string[]) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
  `<title>${title}</title>${css.map((href) => `<link rel="stylesheet" href="${href}">`).join('')}`;

/** Swagger UI with a definition picker: admin (`/app/v1`, bearer) and client (`/api/v1`, `x-api-key`). */
export function docsPage(): string {
  const config = {
    urls: [
      { url: '/app/v1/openapi.json', name: 'Admin API (/app/v1)' },
      { url: '/api/v1/openapi.json', name: 'Client API (/api/v1)' },
    ],
    dom_id: '#swagger-ui',
    deepLinking: true,
    tryItOutEnabled: true,
    persistAuthorization: false,
    displayRequestDuration: true,
    validatorUrl: null,
    layout: 'StandaloneLayout',
  };
  return (
    head('Content Platform API reference', ['/docs/assets/swagger-ui/swagger-ui.css']) +
    '<link rel="icon" href="/docs/assets/swagger-ui/favicon-32x32.png">' +
    `<style>body{margin:0} .swagger-ui .topbar .download-url-wrapper .select-label{max-width:none}</style></head><body>` +
    `<div id="swagger-ui"></div>` +
    `<script src="/docs/assets/swagger-ui/swagger-ui-bundle.js"></script>` +
    `<script src="/docs/assets/swagger-ui/swagger-ui-standalone-preset.js"></script>` +
    `<script>
      const params = new URLSearchParams(location.search);
      window.ui = SwaggerUIBundle(Object.assign(${JSON.stringify(config)}, {
        'urls.primaryName': params.get('api') === 'client' ? 'Client API (/api/v1)' : 'Admin API (/app/v1)',
        presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
        plugins: [SwaggerUIBundle.plugins.DownloadUrl],
      }));
    </script></body></html>`
  );
}

export function graphiqlPage(): string {
  return (
    head('Content Platform GraphQL IDE', ['/docs/assets/graphiql.css']) +
    `<style>html,body,#graphiql{height:100%;margin:0}</style></head><body>` +
    `<div id="graphiql">Loading GraphiQL…</div><script src="/docs/assets/graphiql.js"></script></body></html>`
  );
}
