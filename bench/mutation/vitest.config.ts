import { defineConfig } from 'vitest/config';
// @ts-expect-error plain ES module shared with the Stryker config
import { selectedModules, testsOf, TIMED_TESTS } from './modules.mjs';

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// Only the tests the selected modules list (MUTATION_MODULE, as in stryker.config.mjs), without the timed
// ones; of those, Stryker runs the files that import a mutated file (related mode) and, per mutant, the tests that
// reach it.
export default defineConfig({
  test: {
    include: testsOf(selectedModules()) as string[],
    testNamePattern: new RegExp(`^(?!.*(?:${(TIMED_TESTS as string[]).map(escape).join('|')})$)`),
    // As in vitest.config.ts: integration tests talk to servers on 127.0.0.1, never through a proxy in the environment.
    setupFiles: ['test/helpers/noProxyForLoopback.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
