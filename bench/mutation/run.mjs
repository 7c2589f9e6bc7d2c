/**
 * `npm run mutation [-- [--force] <module slug or part of a name> ...]`: runs Stryker once per module (sequentially:
 * the machine may be shared), each incremental against its own previous run (`--force`: every mutant again; Stryker
 * reuses a surviving mutant's result even after tests were added), then writes bench/mutation.md from every module's
 * JSON report. Not part of `npm test`.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MODULES, selectedModules, slugOf } from './modules.mjs';

const ROOT = join(fileURLToPath(new URL('.', import.meta.url)), '../..');
const force = process.argv.includes('--force');
const filters = process.argv.slice(2).filter((a) => a !== '--force');
const modules = filters.length ? [...new Set(filters.flatMap((f) => selectedModules(f)))] : MODULES;
let failed = 0;
for (const module of modules) {
  console.log(`\n== mutation: ${module.name} (${slugOf(module)})`);
  const run = spawnSync(process.execPath, [join(ROOT, 'node_modules/@stryker-mutator/core/bin/stryker.js'), 'run', ...(force ? ['--force'] : [])], {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, MUTATION_MODULE: slugOf(module) },
  });
  if (run.status !== 0) {
    failed++;
    console.error(`mutation: Stryker failed for ${module.name} (exit ${run.status})`);
  }
}
const report = spawnSync(process.execPath, [join(ROOT, 'bench/mutation/report.mjs')], { cwd: ROOT, stdio: 'inherit' });
process.exit(failed || report.status ? 1 : 0);
