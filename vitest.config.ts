import { defineConfig } from 'vitest/config';

// One test run for the whole workspace: `pnpm test` runs every package's tests, and
// `pnpm test services/auth` runs one package's. Test files start real processes and real
// servers, so files run in a small number of forks sized for a 2-core machine.
export default defineConfig({
  test: {
    include: ['{services,packages,proto,test-e2e,deploy}/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/.data/**'],
    // `.ci/run` sets SHEETGATE_SERVER_USE_LOG in its real-servers pass to learn which files read
    // DATABASE_URL or REDIS_URL; only those run again with the embedded defaults.
    setupFiles: process.env.SHEETGATE_SERVER_USE_LOG ? ['.ci/record-server-use.ts'] : [],
    pool: 'forks',
    maxWorkers: 2,
    // As `pnpm start` runs: without a PostgreSQL server the tests open PGlite (WASM) again and
    // again, and V8's background recompilation of it costs seconds of CPU per open and never pays
    // back in a test’s few queries (the launcher runs so too: package.json’s `start`).
    execArgv: ['--liftoff-only'],
    // Generous limits: a test starting whole stacks takes many times its quiet time on this 2-core
    // machine while another suite runs beside it. A limit is a hang detector here, never a speed goal (that is `pnpm bench`).
    testTimeout: 60_000,
    // Above the test harness's 90 s wait for a stack's ready line, so that its message is the one seen.
    hookTimeout: 120_000,
  },
});
