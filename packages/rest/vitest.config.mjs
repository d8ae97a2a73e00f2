import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';
import { sharedConfig } from '../../vitest.shared.mjs';

// The packages are used built (CommonJS): tests that hand their schemas to Apollo and sofa must see the same graphql
// module copy, not graphql's ESM build, or graphql-js refuses the schema as "from another module or realm".
const graphql = createRequire(import.meta.url).resolve('graphql');

export default defineConfig({ ...sharedConfig, resolve: { alias: [{ find: /^graphql$/, replacement: graphql }] } });
