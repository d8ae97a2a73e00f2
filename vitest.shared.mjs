// Shared vitest settings: swc emits the decorator metadata that type-graphql and MikroORM read.
import swc from 'unplugin-swc';

export const sharedConfig = {
  plugins: [swc.vite({ module: { type: 'es6' } })],
  test: {
    include: ['src/**/*.test.ts', '*.test.ts', '**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    setupFiles: ['reflect-metadata'],
  },
};
