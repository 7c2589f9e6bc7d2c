import { build } from 'esbuild';
import { join } from 'node:path';
import { REPO_ROOT } from './repo.js';
// @ts-expect-error plain ES module shared with the build script
import { ALIASES } from '../../build/bundles.mjs';

/**
 * Bundles a test-only TypeScript program (e.g. a child process that exercises a kernel module) into one .mjs,
 * so tests can spawn many real processes without paying for a TypeScript loader in each. `cjs`: a CommonJS file,
 * as the hooks are (Node's ES module loader reads the entry through its thread pool before the program starts).
 */
export async function bundleForTest(entry: string, outfile: string, options: { cjs?: boolean } = {}): Promise<string> {
  if (options.cjs) {
    await build({ absWorkingDir: REPO_ROOT, entryPoints: [join(REPO_ROOT, entry)], outfile, bundle: true, alias: ALIASES, platform: 'node', target: 'node20', format: 'cjs', logLevel: 'error' });
    return outfile;
  }
  await build({
    absWorkingDir: REPO_ROOT,
    entryPoints: [join(REPO_ROOT, entry)],
    outfile,
    bundle: true,
    alias: ALIASES,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    banner: { js: 'import{createRequire as __cr}from"node:module";const require=__cr(import.meta.url);' },
    logLevel: 'error',
  });
  return outfile;
}
