import { defineConfig } from 'vitest/config';

const shared = {
  setupFiles: ['test/helpers/noProxyForLoopback.ts', 'test/helpers/noSystemKeychain.ts'],
  // A backstop for a hang, not a deadline: a test whose point is a deadline measures it (against a baseline of the
  // same run where the machine's speed matters). A loaded machine runs some files several times slower.
  testTimeout: 120_000,
  hookTimeout: 120_000,
};

export default defineConfig({
  test: {
    // test/managed writes the machine-wide managed settings file: vitest.managed.config.ts runs it after this suite, in a
    // mount namespace of its own (test/managed/isolated.mjs). This suite must not see the machine's /etc/agentstack or
    // /etc/cursor at all: npm test (test/run-all.mjs) hides them, and a run that sees them is refused.
    globalSetup: ['test/helpers/machineEtc.ts'],
    pool: 'forks',
    // Four workers on a 2-core machine: the files wait on the processes, servers and timers they test, and with two
    // workers about half the CPU sat idle (the suite took 332 s of wall time; with four, 213 s).
    maxWorkers: 4,
    // In CI: dots, plus a JSON report .ci/run turns into one plain "N passed, N failed" closing line. Last: what did not
    // run on this machine, and why. (test/run-all.mjs moves the JSON report of its run as nobody, who cannot write here.)
    reporters: process.env.CI ? ['dot', ['json', { outputFile: process.env.AGENTSTACK_VITEST_JSON ?? 'test-output/vitest.json' }], 'test/helpers/notRunReporter.ts'] : ['default', 'test/helpers/notRunReporter.ts'],
    projects: [
      {
        // Files that keep no module state between them share a worker's loaded modules (isolate: false): importing
        // the core, the SDKs and lib/ once per worker instead of once per file (about a second each).
        test: {
          ...shared,
          name: 'shared',
          include: ['test/unit/**/*.test.ts', 'test/adversarial/**/*.test.ts', 'test/plugin/**/*.test.ts', 'test/e2e/**/*.test.ts'],
          isolate: false,
        },
      },
      {
        test: {
          ...shared,
          name: 'isolated',
          include: ['test/integration/**/*.test.ts'],
        },
      },
    ],
  },
});
