import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // test/managed writes the machine-wide managed settings file: vitest.managed.config.ts runs it alone, after.
    exclude: ['test/managed/**', 'node_modules/**'],
    setupFiles: ['test/helpers/noProxyForLoopback.ts', 'test/helpers/noSystemKeychain.ts'],
    globalSetup: ['test/helpers/notRunNote.ts'],
    // A backstop for a hang, not a deadline: a test whose point is a deadline measures it (against a baseline of the
    // same run where the machine's speed matters). A loaded machine runs some files several times slower.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 2,
    // In CI: dots, plus a JSON report .ci/run turns into one plain "N passed, N failed" closing line.
    reporters: process.env.CI ? ['dot', ['json', { outputFile: 'test-output/vitest.json' }]] : ['default'],
  },
});
