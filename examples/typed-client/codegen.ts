// GraphQL Code Generator: typed documents for the operations in src/ from the committed client schema.
import type { CodegenConfig } from '@graphql-codegen/cli';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const API_SCHEMA = join(__dirname, '../../schema/api.graphql');
// The gateway serves `Subscription.events` beside the composed schema; until the committed schema has it, the
// subscription types come from a local fragment. Once schema/api.graphql declares `type Subscription`, the fragment
// is left out automatically (and can be deleted).
const hasSubscription = /^type Subscription\b/m.test(readFileSync(API_SCHEMA, 'utf8'));

const config: CodegenConfig = {
  schema: hasSubscription ? [API_SCHEMA] : [API_SCHEMA, join(__dirname, 'subscription.graphql')],
  documents: ['src/**/*.ts', '!src/gql/**'],
  generates: {
    'src/gql/': {
      preset: 'client',
      presetConfig: { fragmentMasking: false },
      config: {
        useTypeImports: true,
        enumsAsTypes: true,
        scalars: { DateTimeISO: 'string', JSON: 'unknown', JSONObject: 'Record<string, unknown>' },
      },
    },
  },
  silent: true,
};

export default config;
