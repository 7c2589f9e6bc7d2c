import { defineConfig } from 'vitest/config';
// @ts-expect-error plain ES module shared with the Stryker config
import { selectedModules, testsOf } from './modules.mjs';

// Only the unit tests the selected modules list (MUTATION_MODULE, as in stryker.config.mjs); of those, Stryker runs
// the ones that import a mutated file (related mode) and, per mutant, the tests that reach it.
export default defineConfig({
  test: {
    include: testsOf(selectedModules()) as string[],
    testTimeout: 30_000,
  },
});
