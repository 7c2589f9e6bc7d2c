// Mutation testing of the pure domain modules and of the modules with I/O and protocol logic. Run through
// `npm run mutation` (bench/mutation/run.mjs), which runs Stryker once per module of bench/mutation/modules.mjs with
// MUTATION_MODULE=<slug>, each with its own incremental file and JSON report, then writes bench/mutation.md.
import { mutateEntries, selectedModules, slugOf } from './bench/mutation/modules.mjs';

const root = new URL('.', import.meta.url).pathname;
const modules = selectedModules();
const name = modules.length === 1 ? slugOf(modules[0]) : 'all';

export default {
  testRunner: 'vitest',
  vitest: { configFile: 'bench/mutation/vitest.config.ts', related: true },
  plugins: ['@stryker-mutator/vitest-runner'],
  mutate: modules.flatMap((m) => mutateEntries(m, root)),
  coverageAnalysis: 'perTest',
  // Only the sources get `// @ts-nocheck`: the shipped bundles (hooks/scripts, scripts) must keep their generated
  // banner as the first line, which the audit's tests read.
  disableTypeChecks: 'lib/**/*.ts',
  concurrency: Number(process.env.MUTATION_CONCURRENCY ?? 2),
  timeoutMS: 10_000,
  timeoutFactor: 2,
  incremental: true,
  incrementalFile: `bench/.mutation/incremental/${name}.json`,
  // Outside bench/ and test/, which the layout test walks.
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
  reporters: ['json', 'progress', 'clear-text'],
  jsonReporter: { fileName: `bench/.mutation/reports/${name}.json` },
  clearTextReporter: { allowColor: false, logTests: false, reportMutants: false, reportScoreTable: true },
  ignorePatterns: ['/.node-cache', '/bench/.mutation', 'bench/.mutation/**', '/.stryker-tmp', 'test-output', 'coverage', '.scratch', 'demo', 'docs'],
};
