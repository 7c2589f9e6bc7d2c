// Mutation testing of the pure domain modules (`npm run mutation`, not part of `npm test`). The modules are listed
// in bench/mutation/modules.mjs; MUTATION_MODULE=<part of a module name> narrows a run to one of them.
import { MODULES, mutateEntries } from './bench/mutation/modules.mjs';

const root = new URL('.', import.meta.url).pathname;
const only = process.env.MUTATION_MODULE?.toLowerCase();
const modules = only ? MODULES.filter((m) => m.name.toLowerCase().includes(only)) : MODULES;
if (!modules.length) throw new Error(`MUTATION_MODULE=${only} matches no module`);

export default {
  testRunner: 'vitest',
  vitest: { configFile: 'bench/mutation/vitest.config.ts', related: true },
  plugins: ['@stryker-mutator/vitest-runner'],
  mutate: modules.flatMap((m) => mutateEntries(m, root)),
  coverageAnalysis: 'perTest',
  concurrency: Number(process.env.MUTATION_CONCURRENCY ?? 2),
  timeoutMS: 20_000,
  timeoutFactor: 3,
  incremental: true,
  incrementalFile: 'bench/.mutation/incremental.json',
  tempDirName: 'bench/.mutation/tmp',
  cleanTempDir: true,
  reporters: ['json', 'progress', 'clear-text'],
  jsonReporter: { fileName: 'bench/.mutation/mutation.json' },
  clearTextReporter: { allowColor: false, logTests: false, reportMutants: false, reportScoreTable: true },
  ignorePatterns: ['/bench/.mutation', 'bench/.mutation/**', 'test-output', 'coverage', '.scratch', 'demo', 'docs', 'assets'],
};
