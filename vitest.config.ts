import { defineConfig } from 'vitest/config';

// One test run for the whole workspace: `pnpm test` runs every package's tests, and
// `pnpm test services/auth` runs one package's. Test files start real processes and real
// servers, so files run in a small number of forks sized for a 2-core machine.
export default defineConfig({
  test: {
    include: ['{services,packages,proto,test-e2e,deploy}/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/.data/**'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
