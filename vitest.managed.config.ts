import { defineConfig } from 'vitest/config';

// The tests that write the machine-wide managed settings file (/etc/agentstack, as root): run by test/managed/isolated.mjs
// in a mount namespace of its own with a copy of /etc, after the main suite, so neither the real /etc nor any other
// test sees the organization's rules; one file at a time, as they share that file.
export default defineConfig({
  test: {
    include: ['test/managed/**/*.test.ts'],
    setupFiles: ['test/helpers/noProxyForLoopback.ts', 'test/helpers/noSystemKeychain.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
    reporters: process.env.CI ? ['dot', ['json', { outputFile: 'test-output/vitest-managed.json' }], 'test/helpers/notRunReporter.ts'] : ['default', 'test/helpers/notRunReporter.ts'],
  },
});
