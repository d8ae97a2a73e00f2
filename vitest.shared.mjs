// Shared vitest settings: swc emits the decorator metadata that type-graphql and MikroORM read.
import swc from 'unplugin-swc';

export const sharedConfig = {
  plugins: [swc.vite({ module: { type: 'es6' } })],
  test: {
    include: ['src/**/*.test.ts', '*.test.ts', '**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**'],
    testTimeout: 120_000, // black-box tests start real services; CI machines are shared and slow at times
    hookTimeout: 180_000,
    pool: 'forks',
    setupFiles: ['reflect-metadata'],
  },
};
