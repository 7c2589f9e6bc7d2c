import { defineConfig } from 'vitest/config';

// The edit loop (`npm run test:quick`): the unit tests, pure logic and in-process code against real files and
// loopback servers, without the suites that run the built scripts as processes. Not a substitute for `npm test`.
export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts'],
    // Spawns writers racing on one file: it belongs with the process-level tests.
    exclude: ['test/unit/debugLog.test.ts', 'node_modules/**'],
    setupFiles: ['test/helpers/noProxyForLoopback.ts', 'test/helpers/noSystemKeychain.ts'],
    // Refused where the machine's /etc/agentstack or /etc/cursor can be seen (node test/withoutMachineEtc.mjs hides
    // them); ends naming what did not run, and why.
    globalSetup: ['test/helpers/machineEtc.ts'],
    reporters: ['default', 'test/helpers/notRunReporter.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 2,
    // The unit tests keep no module state between files: a worker imports lib/ and the core once, not once a file.
    isolate: false,
  },
});
