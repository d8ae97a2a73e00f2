// Build step: bundles GraphiQL (React, codemirror, graphql-ws) into dist/docs/assets, so the IDE page needs no CDN.
import { build } from 'esbuild';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
await build({
  entryPoints: { graphiql: join(here, 'ide/graphiql-entry.js') },
  outdir: join(here, '../../dist/docs/assets'),
  bundle: true,
  minify: true,
  format: 'iife',
  target: 'es2020',
  platform: 'browser',
  define: { 'process.env.NODE_ENV': '"production"' },
  loader: { '.woff': 'file', '.woff2': 'file', '.ttf': 'file', '.svg': 'file', '.png': 'file' },
  logLevel: 'warning',
  legalComments: 'none',
});
