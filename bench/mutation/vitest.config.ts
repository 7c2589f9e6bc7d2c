import { defineConfig } from 'vitest/config';
// @ts-expect-error plain ES module shared with the Stryker config
import { MUTATION_TESTS } from './modules.mjs';

// Only the unit tests the modules list; of those, Stryker runs the ones that import a mutated file (related mode).
export default defineConfig({
  test: {
    include: MUTATION_TESTS as string[],
    testTimeout: 30_000,
  },
});
