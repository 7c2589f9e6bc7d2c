import { defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config';

// The edit loop (`npm run test:quick`): the unit tests, pure logic and in-process code against real files and
// loopback servers, without the suites that run the built scripts as processes. Not a substitute for `npm test`.
export default mergeConfig(base, defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts'],
    // Spawns writers racing on one file: it belongs with the process-level tests.
    exclude: ['test/unit/debugLog.test.ts'],
  },
}));
