import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/helpers/noProxyForLoopback.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    maxWorkers: 2,
    // In CI: dots, plus a JSON report .ci/run turns into one plain "N passed, N failed" closing line.
    reporters: process.env.CI ? ['dot', ['json', { outputFile: 'test-output/vitest.json' }]] : ['default'],
  },
});
