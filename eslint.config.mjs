// Lint rules for every workspace: ESLint's and typescript-eslint's recommended sets; Prettier owns formatting.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      '**/.turbo/**',
      'data/**',
      'schema/**',
      'test/artifacts/**',
      'examples/typed-client/src/gql/**',
      'examples/typed-client/project/src/gql/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        setImmediate: 'readonly',
        URL: 'readonly',
        URLSearchParams: 'readonly',
        fetch: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
        structuredClone: 'readonly',
        queueMicrotask: 'readonly',
        performance: 'readonly',
        __dirname: 'readonly',
        Response: 'readonly',
        Request: 'readonly',
        Headers: 'readonly',
        WebSocket: 'readonly',
        globalThis: 'readonly',
        crypto: 'readonly',
        Blob: 'readonly',
        FormData: 'readonly',
        document: 'readonly',
        window: 'readonly',
      },
    },
    rules: {
      // Unused names are bugs unless deliberately marked with a leading underscore.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // Entry points start tracing before anything else is loaded: `require` after it is deliberate (packages/tracing).
    files: ['**/src/main.ts', 'packages/tracing/src/index.ts', 'apps/cli/bin/**'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['apps/cli/bin/**'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable' } },
  },
  {
    // The GraphiQL page's entry runs in the browser.
    files: ['apps/gateway/src/docs/ide/**'],
    languageOptions: { globals: { location: 'readonly', localStorage: 'readonly', navigator: 'readonly' } },
  },
  {
    // Layers: shared libraries (packages/) sit under the subgraphs, and both under the apps. A library that imported a
    // subgraph or an app would tie every subgraph service to the others' code, so an import upward fails the lint.
    files: ['packages/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@cp/subgraph-*', '@cp/supergraph', '@cp/gateway', '@cp/cli'],
              message: 'packages/ may not import a subgraph or an app.',
            },
          ],
        },
      ],
    },
  },
  {
    // The caller's model and the data layer sit under the GraphQL toolkit that subgraphs build on.
    files: ['packages/{config,errors,principal,db,auth,metrics,tracing}/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                '@cp/graphql',
                '@cp/host',
                '@cp/edge',
                '@cp/subgraph-*',
                '@cp/supergraph',
                '@cp/gateway',
                '@cp/cli',
              ],
              message: 'A lower layer may not import the GraphQL toolkit, the host, a subgraph or an app.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['subgraphs/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['@cp/supergraph', '@cp/gateway', '@cp/cli'], message: 'A subgraph may not import an app.' },
          ],
        },
      ],
    },
  },
  {
    // Tests and benchmarks read JSON answers whose shape is the thing under test: `any` there is the honest type.
    files: ['test/**', 'bench/**', '**/*.test.ts', '**/testing.ts', '**/*.fixture.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
