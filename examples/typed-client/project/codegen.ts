// GraphQL Code Generator on one project's typed schema: `schema.graphql` is its SDL, downloaded from
// `GET /api/v1/organizations/{org}/projects/{proj}/graphql/schema.graphql` (see README below and docs/api/typed-graphql.md).
import type { CodegenConfig } from '@graphql-codegen/cli';
import { join } from 'node:path';

const config: CodegenConfig = {
  schema: join(__dirname, 'schema.graphql'),
  documents: [join(__dirname, 'src/**/*.ts'), `!${join(__dirname, 'src/gql/**')}`],
  generates: {
    [join(__dirname, 'src/gql/')]: {
      preset: 'client',
      presetConfig: { fragmentMasking: false },
      config: { useTypeImports: true, enumsAsTypes: true, scalars: { JSON: 'unknown' } },
    },
  },
  silent: true,
};

export default config;
