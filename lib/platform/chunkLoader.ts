/**
 * Loads one of a hook's sibling chunk files (plain CommonJS files committed next to the hook script, never a package)
 * with a compile cache, so a hook does not parse and compile the same code at every run:
 * - Node >= 22.1: `module.enableCompileCache(dir)` (Node's own cache, checked against the source by Node);
 * - Node 20: a V8 code cache made with `vm.Script#createCachedData`, which V8 rejects unless the source, the V8
 *   version and the flags match.
 * The cache folder is ours (one per plugin version) and only an optimisation: when it cannot be created, read or
 * written, the chunk is compiled as without it, and nothing is said.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import module from 'node:module';
import { join } from 'node:path';
import { Script } from 'node:vm';

type EnableCompileCache = (dir: string) => unknown;

function ensureDir(dir: string): boolean {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    return true;
  } catch {
    return false;
  }
}

let compileCacheTried = false;
let cacheFolder: string | null = null;
const loaded = new Map<string, unknown>();

/** Where loadChunk keeps its compile cache from now on (null: no cache). */
export function useChunkCache(dir: string | null): void {
  cacheFolder = dir;
}

function loadWithV8Cache(file: string, cacheDir: string | null): unknown {
  const source = readFileSync(file, 'utf8');
  const wrapped = `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
  const cacheFile = cacheDir ? join(cacheDir, `${file.replace(/^.*[\\/]/, '')}.${process.version}.v8cache`) : null;
  let cachedData: Buffer | undefined;
  if (cacheFile) {
    try { cachedData = readFileSync(cacheFile); } catch { /* first run, or unreadable */ }
  }
  const script = new Script(wrapped, { filename: file, cachedData });
  const m = { exports: {} as unknown };
  const dirname = file.replace(/[\\/][^\\/]*$/, '');
  (script.runInThisContext() as (...args: unknown[]) => void)(m.exports, module.createRequire(file), m, file, dirname);
  if (cacheFile && (cachedData === undefined || script.cachedDataRejected) && ensureDir(cacheDir!)) {
    // After the run, so the cache also holds the functions the run compiled. Written whole, then renamed.
    try {
      const tmp = `${cacheFile}.${process.pid}.tmp`;
      writeFileSync(tmp, script.createCachedData(), { mode: 0o600 });
      renameSync(tmp, cacheFile);
    } catch { /* read-only or full: run uncached next time too */ }
  }
  return m.exports;
}

/** Loads `file` (an absolute path to a CommonJS chunk) through the compile cache. Once per process, like require(). */
export function loadChunk(file: string): unknown {
  const cacheDir = cacheFolder;
  const enable = (module as unknown as { enableCompileCache?: EnableCompileCache }).enableCompileCache;
  if (enable) {
    if (cacheDir && !compileCacheTried && ensureDir(cacheDir)) {
      compileCacheTried = true;
      try { enable(cacheDir); } catch { /* a cache that cannot be enabled is no cache */ }
    }
    return module.createRequire(file)(file);
  }
  if (!loaded.has(file)) loaded.set(file, loadWithV8Cache(file, cacheDir));
  return loaded.get(file);
}
