import { defineConfig } from 'vitest/config';

// The tests that write the machine-wide managed settings file (/etc/agentstack, as root): run on their own, after the
// main suite, so no other test's hooks see the organization's rules.
export default defineConfig({
  test: {
    include: ['test/managed/**/*.test.ts'],
    setupFiles: ['test/helpers/noProxyForLoopback.ts', 'test/helpers/noSystemKeychain.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
    reporters: process.env.CI ? ['dot', ['json', { outputFile: 'test-output/vitest-managed.json' }]] : ['default'],
  },
});
